#ifndef LNET_IDL_H
#define LNET_IDL_H
#endif
