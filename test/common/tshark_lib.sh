# SPDX-License-Identifier: BSD-3-Clause
# Wireshark's LNet dissector as the oracle (shared/reference/wireshark-oracle.md),
# sourced by the tests that run it. $work must be a scratch directory.

# tshark_check_file PCAP: every LNet PDU decodes, nothing is malformed or
# warned about, and per stream and direction the bytes account exactly:
# sum(tcp.len) - prefix == sum(tcp.pdu.size), the prefix being 72 (acceptor
# request + V3 hello) for the connecting side and 56 (hello) for the
# accepting one (port 988). LNet-only mode: PUT payloads are plain data.
# TCP's own flow-control notes (window full) are not problems of ours. Prints the verdict; needs 6 LNet messages or more.
tshark_check_file() {
	tshark -2 -n -r "$1" -X lua_script:"$(dirname "$0")/../common/lnet_data_portals.lua" -Y 'tcp.port==988 && tcp.len>0 && !tcp.analysis.retransmission' \
		-T fields -E separator='|' -E occurrence=a \
		-e tcp.stream -e tcp.srcport -e tcp.len -e tcp.pdu.size -e lnet.ksm_type -e lnet.msg_type \
		-e _ws.expert.severity -e _ws.malformed -e _ws.expert.group 2>/dev/null >"$work/fields"
	awk -F'|' -v name="$(basename "$1")" '
	{
		key = $1 "/" $2
		len[key] += $3
		n = split($4, s, ",")
		for (i = 1; i <= n; i++) pdu[key] += s[i]
		if ($2 == 988) prefix[key] = 56; else prefix[key] = 72
		n = split($5, t, ",")
		for (i = 1; i <= n; i++) if (t[i] != "" && t[i] != "0x000000c0" && t[i] != "0x000000c1") bad++
		n = split($6, m, ",")
		for (i = 1; i <= n; i++) { if (m[i] != "" && m[i] > 3) bad++; if (m[i] != "") msgs++ }
		# TCP flow control (window full, zero window) is the Sequence group: not our bytes.
		n = split($7, sev, ","); split($9, grp, ",")
		for (i = 1; i <= n; i++) if (grp[i] != "33554432" && grp[i] != "0x02000000") { print "expert: " $0; bad++ }
		if ($8 != "") { print "malformed: " $0; bad++ }
	}
	END {
		for (k in len) if (len[k] - prefix[k] != pdu[k]) { printf "stream/port %s: %d bytes, %d in PDUs\n", k, len[k] - prefix[k], pdu[k]; bad++ }
		printf "tshark %s: %d LNet messages decoded, %d problems\n", name, msgs, bad
		exit (bad == 0 && msgs >= 6) ? 0 : 1
	}' "$work/fields"
}

# tshark_headers PCAP [tshark_lnet.py options]: the LNet header of each PDU, in order.
tshark_headers() {
	python3 "$(dirname "$0")/../common/tshark_lnet.py" "$@"
}
