/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A cls_bpf program for the loss tests (eth_ni.sh): compiled there with
 * clang -target bpf and attached with tc in direct-action mode.
 */
/* 1% of the frames through the filter are dropped (TC_ACT_SHOT), at random. */
typedef unsigned int __u32;
struct __sk_buff;
static __u32 (*bpf_get_prandom_u32)(void) = (void *)7; /* BPF_FUNC_get_prandom_u32 */
__attribute__((section("classifier"), used)) int
loss(struct __sk_buff *skb)
{
	(void)skb;
	return bpf_get_prandom_u32() % 100 == 0 ? 2 : 0; /* TC_ACT_SHOT : TC_ACT_OK */
}
char _license[] __attribute__((section("license"), used)) = "GPL"; /* helpers need it */
