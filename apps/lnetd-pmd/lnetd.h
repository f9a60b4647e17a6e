/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LNETD_H
#define LNETD_H

#include <stddef.h>
#include <stdint.h>

#define LNETD_DEFAULT_NAME "lnetd"

/* Daemon options (after "--"). */
struct lnetd_opts {
	const char *config;   /* --config FILE; NULL: the embedded default */
	const char *name;     /* --name NAME: EAL file prefix, lnetctl --name */
	const char *cpu_pattern; /* --cpu-pattern "0[0,1] 1[2,3]": CPTs; NULL: libnuma */
	int accept_port;      /* --accept-port: the socklnd acceptor's port */
	int accept;           /* --accept: enum socklnd_accept */
};

/* lnetd_config.c: apply a YAML configuration (lnetctl export format). */
int lnetd_config_apply_file(const char *path, char *err, size_t errlen);
int lnetd_config_apply_text(const char *text, size_t len, const char *origin, char *err,
			    size_t errlen);

/* lnetd_telemetry.c: register the /lnet/... telemetry commands. */
int lnetd_telemetry_register(void);
void lnetd_socklnd_opts_set(uint16_t port, int accept);

/* The embedded config/default.yaml (generated). */
extern const char lnetd_default_yaml[];

#endif /* LNETD_H */
