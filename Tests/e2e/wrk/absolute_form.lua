-- Makes wrk talk to a forward proxy: every request is absolute-form (RFC 9112 §3.2.2) with the origin's Host.
-- E2E_WRK_TARGET: the origin URL, e.g. http://origin.test:8080/ ; E2E_WRK_HOST: its host:port.
-- At the end prints one line the test parses: "E2E_WRK requests=N responses=N non2xx=N connect=N ...".

wrk.path = os.getenv("E2E_WRK_TARGET")
wrk.headers["Host"] = os.getenv("E2E_WRK_HOST")

local threads = {}

function setup(thread)
   table.insert(threads, thread)
end

function init(args)
   responses = 0
   non2xx = 0
end

function response(status, headers, body)
   responses = responses + 1
   if status < 200 or status > 299 then
      non2xx = non2xx + 1
   end
end

function done(summary, latency, requests)
   local total_responses, total_non2xx = 0, 0
   for _, thread in ipairs(threads) do
      total_responses = total_responses + thread:get("responses")
      total_non2xx = total_non2xx + thread:get("non2xx")
   end
   local errors = summary.errors
   io.write(string.format(
      "E2E_WRK requests=%d responses=%d non2xx=%d connect=%d read=%d write=%d status=%d timeout=%d\n",
      summary.requests, total_responses, total_non2xx,
      errors.connect, errors.read, errors.write, errors.status, errors.timeout))
end
