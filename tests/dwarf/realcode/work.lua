-- work.lua - the deterministic workload of the lua5.4 corpus binaries
-- (tests/dwarf/realcode.sh): floating point, strings, tables, closures,
-- coroutines, metatables, errors.  Its output goes to the file in arg[1].
local out = assert(io.open(arg[1], "w"))
math.randomseed(42)

local function mandel(w, h, iters)
  local n = 0
  for y = 0, h - 1 do
    for x = 0, w - 1 do
      local cr, ci = 2.0 * x / w - 1.5, 2.0 * y / h - 1.0
      local zr, zi, i = 0.0, 0.0, 0
      while i < iters and zr * zr + zi * zi < 4.0 do
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        i = i + 1
      end
      n = n + i
    end
  end
  return n
end
out:write("mandel ", mandel(24, 16, 50), "\n")

local words = {}
for w in ("the quick brown fox jumps over the lazy dog again and again"):gmatch("%a+") do
  words[#words + 1] = w:upper():reverse()
end
table.sort(words)
out:write(table.concat(words, ","), "\n")
out:write(string.format("%5.2f %d %s %q %x %g\n", math.pi, 12345, "str", "a\nb", 255, 1e300 * 10))

local V = {}
V.__index = V
V.__add = function(a, b) return setmetatable({ x = a.x + b.x, y = a.y + b.y }, V) end
V.__tostring = function(v) return ("(%g,%g)"):format(v.x, v.y) end
local acc = setmetatable({ x = 0, y = 0 }, V)
for i = 1, 20 do acc = acc + setmetatable({ x = i / 3, y = -i * 0.25 }, V) end
out:write(tostring(acc), "\n")

local co = coroutine.wrap(function(a)
  for i = 1, 5 do a = coroutine.yield(a * i) end
  return a
end)
local s = 1
for _ = 1, 6 do s = co(s) + 1 end
out:write("co ", s, "\n")

local ok, err = pcall(function() error({ code = 7 }) end)
out:write("pcall ", tostring(ok), " ", err.code, "\n")
local t = {}
for i = 1, 300 do t[i] = (i * 7919) % 1000 + math.sqrt(i) end
for i = 1, 100 do t["k" .. i] = i * 1.5 end
local sum = 0
for _, v in pairs(t) do sum = sum + v end
out:write(string.format("sum %.6f rand %d\n", sum, math.random(1, 1000)))
out:write(utf8.char(72, 228, 8364), " ", #utf8.char(8364), " ", ("x"):rep(3, "-"), "\n")
local f = load("local a, b = ... return a // b, a % b, a / b, 2^0.5")
out:write(table.concat({ f(17, 5) }, " "), "\n")
collectgarbage()
out:close()
