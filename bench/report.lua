-- wrk's summary for scripts/bench.py, as one parseable line:
--   BENCH {"requests":…,"duration_us":…,"p50_us":…,"p99_us":…,"status":…,…}
-- "status" is wrk's count of responses with a status of 400 or more; connect, read, write
-- and timeout are its socket errors.
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH {"requests":%d,"duration_us":%d,"bytes":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,' ..
    '"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}\n',
    summary.requests, summary.duration, summary.bytes,
    math.floor(latency:percentile(50)), math.floor(latency:percentile(90)),
    math.floor(latency:percentile(99)), math.floor(latency.max),
    e.connect, e.read, e.write, e.status, e.timeout))
end
