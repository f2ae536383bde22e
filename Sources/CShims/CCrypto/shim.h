#ifndef SCANPICK_CCRYPTO_SHIM_H
#define SCANPICK_CCRYPTO_SHIM_H
#include <openssl/sha.h>
#include <openssl/crypto.h>
#endif
