#ifndef LNET_WIRE_H
#define LNET_WIRE_H
#endif
