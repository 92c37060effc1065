-- wrk: every request carries a new W3C traceparent, 1 in 100 of them sampled (flags 01), the rest not
-- (00), as from clients sampling 1 % of their traces. With tracing: on (parent-based sampling), the
-- gateway exports a span for the sampled ones only. Used by profile.sh --script.
local n = 0
local function hex(digits)
  local s = ""
  while #s < digits do
    s = s .. string.format("%08x", math.random(0, 0x7fffffff))
  end
  return s:sub(1, digits)
end
request = function()
  n = n + 1
  local flags = (n % 100 == 0) and "01" or "00"
  wrk.headers["traceparent"] = "00-" .. hex(32) .. "-" .. hex(16) .. "-" .. flags
  return wrk.format()
end
