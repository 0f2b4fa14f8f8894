-- Requests for scripts/bench.py: wrk -s requests.lua URL -- MODE [ARGS] (run from this folder).
--   entry COUNT STEP        GET /api/entries/ID, ID = 1 + STEP * k for a random k in 0..COUNT-1
--   reads COUNT STEP        list page 1 and a random entry, alternately
--   post TOKEN              POST /api/entries with a bearer token, a body of about 1 KB
--   mixed COUNT STEP TOKEN  every 10th request a post, the others as in reads
-- Each wrk thread has its own Lua state and its own counter, so the shares are exact.
dofile("report.lua")

local list = "/api/entries?page=1&per_page=20"
local mode, count, step, token
local listing, posting
local n, reads = 0, 0
local nextThread = 0

function setup(thread)
  nextThread = nextThread + 1
  thread:set("thread_number", nextThread)
end

function init(args)
  mode = args[1]
  count, step = tonumber(args[2] or "1"), tonumber(args[3] or "1")
  token = mode == "post" and args[2] or args[4]
  math.randomseed(1000 + (thread_number or 0))
  if token then
    local body = '{"title":"Posted by wrk","body":"' .. string.rep("A line of a benchmark entry. ", 34) .. '"}'
    posting = wrk.format("POST", "/api/entries", {
      ["Authorization"] = "Bearer " .. token,
      ["Content-Type"] = "application/json",
    }, body)
  end
  listing = wrk.format("GET", list)
end

local function entry()
  return wrk.format("GET", "/api/entries/" .. (1 + step * math.random(0, count - 1)))
end

local function read()
  reads = reads + 1
  if reads % 2 == 0 then return listing end
  return entry()
end

function request()
  n = n + 1
  if mode == "entry" then return entry() end
  if mode == "post" then return posting end
  if mode == "mixed" and n % 10 == 0 then return posting end
  return read()
end
