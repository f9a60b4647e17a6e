/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A cls_bpf direct-action program for net_veth_loss.sh: drops about
 * LOSS_PER_10K in 10000 IPv4 frames (the kernel has no netem here). Built
 * by the test with clang -target bpf, one object per loss rate. The draw is
 * the kernel's bpf_get_prandom_u32, which no one can seed: the rate holds,
 * the exact frames do not repeat.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>

#ifndef LOSS_PER_10K
#error "build with -DLOSS_PER_10K=N"
#endif

/* The helper by its number, as the kernel's UAPI lists it (no libbpf needed). */
static __u32 (*const get_prandom_u32)(void) = (void *)BPF_FUNC_get_prandom_u32;

__attribute__((section("tc"), used)) int
lossy(struct __sk_buff *skb)
{
	/* Ethertype 0x0800 in network order: only IPv4 frames, ARP always passes. */
	if (skb->protocol != __builtin_bswap16(0x0800)) {
		return TC_ACT_OK;
	}
	return get_prandom_u32() % 10000 < LOSS_PER_10K ? TC_ACT_SHOT : TC_ACT_OK;
}

__attribute__((section("license"), used)) char lossy_license[] = "BSD";
