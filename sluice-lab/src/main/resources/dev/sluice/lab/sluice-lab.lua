-- sluice-lab: wrk script that checks every response and counts them per wall-clock second.
--   wrk -s sluice-lab.lua URL -- MIN_BYTES EXACT_BYTES
-- A response is good when its status is 200 and its body has at least MIN_BYTES bytes (and exactly
-- EXACT_BYTES when that is >= 0). done() prints machine-readable lines, each starting "sluice-lab ":
--   sluice-lab summary <key>=<value> ...      wrk's totals and socket errors
--   sluice-lab second <epoch> <good> <bad>    responses completed in that second
--   sluice-lab status <code> <count>          responses with a status other than 200
--   sluice-lab mean <microseconds>            mean latency
--   sluice-lab quantile <p> <microseconds>    latency percentiles (0.1 steps, then 99.9x; 0 = min, 100 = max)

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  min_bytes = tonumber(args[1]) or 0
  exact_bytes = tonumber(args[2]) or -1
  good_at = {}
  bad_at = {}
  statuses = {}
  bad_size = 0
end

function response(status, headers, body)
  local second = os.time()
  local size = 0
  if body ~= nil then size = #body end
  if status == 200 and size >= min_bytes and (exact_bytes < 0 or size == exact_bytes) then
    good_at[second] = (good_at[second] or 0) + 1
  else
    bad_at[second] = (bad_at[second] or 0) + 1
    if status ~= 200 then
      statuses[status] = (statuses[status] or 0) + 1
    else
      bad_size = bad_size + 1
    end
  end
end

local function add(into, from)
  if from == nil then return end
  for k, v in pairs(from) do into[k] = (into[k] or 0) + v end
end

function done(summary, latency, requests)
  local good, bad, status, size_errors = {}, {}, {}, 0
  for _, t in ipairs(threads) do
    add(good, t:get("good_at"))
    add(bad, t:get("bad_at"))
    add(status, t:get("statuses"))
    size_errors = size_errors + (t:get("bad_size") or 0)
  end
  local e = summary.errors
  io.write(string.format("sluice-lab summary requests=%d duration_us=%d bytes=%d connect=%d read=%d write=%d status=%d timeout=%d bad_size=%d\n",
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout, size_errors))
  local seconds = {}
  for s, _ in pairs(good) do seconds[s] = true end
  for s, _ in pairs(bad) do seconds[s] = true end
  for s, _ in pairs(seconds) do
    io.write(string.format("sluice-lab second %d %d %d\n", s, good[s] or 0, bad[s] or 0))
  end
  for code, n in pairs(status) do
    io.write(string.format("sluice-lab status %d %d\n", code, n))
  end
  if summary.requests > 0 then
    io.write(string.format("sluice-lab mean %.3f\n", latency.mean))
    io.write(string.format("sluice-lab quantile 0 %d\n", latency.min))
    for i = 1, 990 do
      io.write(string.format("sluice-lab quantile %.1f %d\n", i / 10, latency:percentile(i / 10)))
    end
    for _, p in ipairs({99.1, 99.2, 99.3, 99.4, 99.5, 99.6, 99.7, 99.8, 99.9, 99.95, 99.99, 99.999}) do
      io.write(string.format("sluice-lab quantile %s %d\n", tostring(p), latency:percentile(p)))
    end
    io.write(string.format("sluice-lab quantile 100 %d\n", latency.max))
  end
end

-- With SLUICE_LAB_RETRY_AFTER=honour in its environment, every 503 with Retry-After makes one of the
-- thread's connections wait that long before its next request, as well-behaved clients would (seed
-- 003's slow clients beside a route that sheds them). wrk's hooks do not say which connection answered,
-- so the waits are owed by the thread and paid by the next requests: the shed requests are paced as
-- if each client had waited itself. Only then is delay() defined: wrk calls it before every request
-- once it exists, so the other runs keep wrk's plain loop.
if os.getenv("SLUICE_LAB_RETRY_AFTER") == "honour" then
  local owed = {}
  local check = response
  response = function(status, headers, body)
    if status == 503 then
      local after = tonumber(headers["Retry-After"] or headers["retry-after"] or "")
      if after ~= nil then table.insert(owed, after * 1000) end
    end
    check(status, headers, body)
  end
  function delay()
    return table.remove(owed, 1) or 0
  end
end
