-- wrk script for the schedule benchmark: each request POSTs a daily 07:30 Europe/Paris
-- notification to /v1/apps/bench.app/devices/dev-N/notifications, N cycling over all devices
-- (thread t sends to N = t, t + threads, t + 2·threads, …), so no device nears the 128 limit.
-- Arguments after `--`: device count, thread count.
-- At the end it prints "status 409: X" and "status other non-2xx: Y".

local threads = {}
local next_tid = 0

function setup(thread)
  thread:set("tid", next_tid)
  next_tid = next_tid + 1
  table.insert(threads, thread)
end

function init(args)
  devices = tonumber(args[1]) or 1000
  nthreads = tonumber(args[2]) or 1
  counter = 0
  conflicts = 0
  others = 0
  body = '{"fireDate":"2030-01-01T07:30","timeZone":"Europe/Paris","repeat":{"unit":"day"},"alert":{"body":"hi"}}'
  headers = { ["Content-Type"] = "application/json" }
end

function request()
  local n = (counter * nthreads + tid) % devices
  counter = counter + 1
  return wrk.format("POST", "/v1/apps/bench.app/devices/dev-" .. n .. "/notifications", headers, body)
end

function response(status, headers, body)
  if status == 409 then
    conflicts = conflicts + 1
  elseif status < 200 or status > 299 then
    others = others + 1
  end
end

function done(summary, latency, requests)
  local c, o = 0, 0
  for _, thread in ipairs(threads) do
    c = c + thread:get("conflicts")
    o = o + thread:get("others")
  end
  io.write(string.format("status 409: %d\nstatus other non-2xx: %d\n", c, o))
end
