-- wrk script for bench/harness.ts: `wrk … -s bench/wrk-requests.lua <url> -- <bodies file> <method> [think ms]`.
-- The file holds one request body a line. One body is sent as wrk's static request (no Lua call
-- per request); several are sent in turn. With a think time above 0, each connection waits about
-- that long after an answer before its next request (a set rate; harness.ts). `done` prints one JSON
-- line for the harness to read.
local requests = {}
local count = 0
local next_index = 0

function init(args)
  local method = args[2] or "POST"
  local think = tonumber(args[3] or "0")
  -- wrk calls delay() only when the script defines it. Think times are drawn from an exponential
  -- distribution of that mean (requests arrive as from many independent users): a constant one
  -- lines the connections up into bursts of 50 requests at once.
  if think > 0 then
    math.randomseed(os.time())
    delay = function() return math.floor(-math.log(1 - math.random()) * think + 0.5) end
  end
  local headers = { ["Content-Type"] = "application/json" }
  for line in io.lines(args[1]) do
    count = count + 1
    requests[count] = wrk.format(method, wrk.path, headers, line)
  end
  if count == 1 then
    wrk.method = method
    wrk.headers["Content-Type"] = "application/json"
    for line in io.lines(args[1]) do wrk.body = line end
    request = nil
  end
end

function request()
  next_index = next_index + 1
  if next_index > count then next_index = 1 end
  return requests[next_index]
end

function done(summary, latency, _)
  local errors = summary.errors
  io.write(string.format(
    '{"requests":%d,"micros":%d,"p50":%.3f,"p99":%.3f,"non2xx":%d,"errors":%d}\n',
    summary.requests, summary.duration, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    errors.status, errors.connect + errors.read + errors.write + errors.timeout))
end
