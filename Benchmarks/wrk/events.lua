-- wrk script for the coalescer benchmark: each request POSTs one system event to
-- /v1/apps/bench.app/devices/dev-N/events. N cycles over all devices (thread t sends to
-- N = t, t + threads, t + 2·threads, …), and each pass over the devices sends the next body of
-- the bodies file (one JSON body per line, written by herald-bench), so every device gets every
-- kind in turn. Arguments after `--`: device count, thread count, bodies file.

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
  bodies = {}
  for line in io.lines(args[3]) do
    if #line > 0 then table.insert(bodies, line) end
  end
  counter = 0
  headers = { ["Content-Type"] = "application/json" }
end

function request()
  local global = counter * nthreads + tid
  local n = global % devices
  local body = bodies[math.floor(global / devices) % #bodies + 1]
  counter = counter + 1
  return wrk.format("POST", "/v1/apps/bench.app/devices/dev-" .. n .. "/events", headers, body)
end
