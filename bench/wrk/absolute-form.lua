-- Request generator for wrk. wrk connects to the URL on its command line (a proxy, or the origin itself for
-- the direct baseline); this script decides the request line, so a proxy receives the absolute-form target
-- that forward proxies require (RFC 9112 §3.2.2).
--
-- Arguments after the URL and "--": REQUEST_TARGET HOST [close]
--   REQUEST_TARGET  "http://bench.test:PORT/1k.bin" through a proxy, "/1k.bin" for the direct baseline
--   HOST            the Host header, the authority of the target (RFC 9112 §3.2)
--   close           send "Connection: close" so every request opens a new connection (RFC 9112 §9.6)
--
-- Setting wrk.path and wrk.headers in init() keeps the request static: wrk formats it once per thread
-- instead of calling into Lua for each request.

function init(args)
   wrk.path = args[1]
   wrk.headers["Host"] = args[2]
   if args[3] == "close" then
      wrk.headers["Connection"] = "close"
   end
end

-- One machine-readable line for bench/run, with exact counts and microsecond percentiles.
function done(summary, latency, requests)
   local errors = summary.errors
   io.write(string.format(
      "BENCH requests=%d duration_us=%d p50_us=%d p99_us=%d connect_errors=%d read_errors=%d "
         .. "write_errors=%d timeouts=%d bad_status=%d\n",
      summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
      errors.connect, errors.read, errors.write, errors.timeout, errors.status))
end
