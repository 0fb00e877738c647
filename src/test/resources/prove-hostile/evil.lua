-- runs at load time: proves code execution by writing a marker file and running a command
local f = io.open("@OUTSIDE@/lua-ran", "w")
f:write("ran\n")
f:close()
os.execute("id > @OUTSIDE@/lua-id")
