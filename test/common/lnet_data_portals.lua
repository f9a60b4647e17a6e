-- SPDX-License-Identifier: BSD-3-Clause
-- "LNet-only mode" for Wireshark's LNet dissector (wireshark-oracle.md 4):
-- every portal's PUT payload goes to the "data" dissector, so a PUT to a
-- portal that no dissector claims is not falsely flagged as malformed.
-- (In tshark 4.0, DissectorTable:set() does not take; remove then add does.)
local portals = DissectorTable.get("lnet.ptl_index")
local data = Dissector.get("data")
for p = 0, 255 do
  local d = portals:get_dissector(p)
  if d ~= nil then portals:remove(p, d) end
  portals:add(p, data)
end
