-- sluice-lab soak: wrk script that paces each connection and classifies every response.
--   wrk -s sluice-soak.lua URL -- KIND THINK_MS
-- KIND is "compose" (a composed response: whole when it starts with { and ends with }}, the end of
-- its _meta; "partial" when _meta lists failed parts) or a byte count (a proxied body of exactly
-- that many bytes). THINK_MS: milliseconds each connection waits before its next request, so the
-- load is a chosen share of the measured peak. done() prints one line:
--   sluice-soak summary requests=N ok=N partial=N broken=N status_5xx=N status_other=N connect=N read=N write=N timeout=N
-- "broken" is a 200 whose body is not whole although it looked complete to HTTP (the failure the
-- soak looks for); a body cut short by an aborted connection is a read error instead (visible).

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  kind = args[1] or "compose"
  think = tonumber(args[2]) or 0
  exact = tonumber(kind)
  ok, partial, broken, s5xx, sother = 0, 0, 0, 0, 0
end

function delay()
  return think
end

local function whole_composition(body)
  if body == nil then return false end
  local first = string.match(body, "^%s*(.)")
  local tail = string.match(body, "(%S%S)%s*$")
  return first == "{" and tail == "}}"
end

function response(status, headers, body)
  if status ~= 200 then
    if status >= 500 then s5xx = s5xx + 1 else sother = sother + 1 end
    return
  end
  if exact ~= nil then
    if body ~= nil and #body == exact then ok = ok + 1 else broken = broken + 1 end
    return
  end
  if not whole_composition(body) then
    broken = broken + 1
  elseif string.find(body, '"failed":[]', 1, true) then
    ok = ok + 1
  else
    partial = partial + 1
  end
end

function done(summary, latency, requests)
  local t = { ok = 0, partial = 0, broken = 0, s5xx = 0, sother = 0 }
  for _, th in ipairs(threads) do
    for k, _ in pairs(t) do t[k] = t[k] + (th:get(k) or 0) end
  end
  local e = summary.errors
  io.write(string.format(
    "sluice-soak summary requests=%d ok=%d partial=%d broken=%d status_5xx=%d status_other=%d connect=%d read=%d write=%d timeout=%d mean_us=%.0f\n",
    summary.requests, t.ok, t.partial, t.broken, t.s5xx, t.sother, e.connect, e.read, e.write, e.timeout, latency.mean))
end
