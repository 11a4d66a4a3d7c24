-- wrk script for bench/harness.ts: `wrk … -s bench/wrk-requests.lua <url> -- <bodies file> <method>`.
-- The file holds one request body a line. One body is sent as wrk's static request (no Lua call
-- per request); several are sent in turn. `done` prints one JSON line for the harness to read
-- (latencies in ms to the microsecond). A set rate is not wrk's: harness.ts sends it through
-- bench/h2load.ts or bench/open-load.ts (wrk's think times are whole milliseconds).
local requests = {}
local count = 0
local next_index = 0

function init(args)
  local method = args[2] or "POST"
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
    '{"requests":%d,"micros":%d,"p50":%.3f,"p90":%.3f,"p99":%.3f,"non2xx":%d,"errors":%d}\n',
    summary.requests, summary.duration, latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000,
    errors.status, errors.connect + errors.read + errors.write + errors.timeout))
end
