/* host_machine.h — choosing the machine description closest to the host
 * (host_machine.c). */
#ifndef AUGUR_HOST_MACHINE_H
#define AUGUR_HOST_MACHINE_H

#include <stddef.h>

#include "machine/machine.h"

/* Load into *m the known description (machine_names) whose data caches
 * are closest in size to this host's, and say why in `why` ("closest to
 * this host's caches: L1D 48 KiB, ...").  -1 with a message naming the
 * fix (--machine) when the host's caches are unknown or no description
 * reads. */
int closest_machine(machine *m, char *why, size_t whylen, char *err, size_t errlen);

#endif
