#include "store/chain_hash.hpp"

#include <openssl/evp.h>

#include "store/little_endian.hpp"

namespace vasana {

Hash256 chain_hash(InstanceId instance, Seqno seqno, Hlc ts, uint16_t op_type, const Hash256& prev,
                   std::string_view payload) {
  uint8_t fixed[8 + 8 + 8 + 2];
  put_u64(fixed, instance.value);
  put_u64(fixed + 8, seqno.value);
  put_u64(fixed + 16, ts.value);
  put_u16(fixed + 24, op_type);
  Hash256 out{};
  unsigned int len = 0;
  // One context per thread: EVP_MD_CTX_new per record would dominate small writes.
  thread_local EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
  EVP_DigestUpdate(ctx, fixed, sizeof fixed);
  EVP_DigestUpdate(ctx, prev.data(), prev.size());
  EVP_DigestUpdate(ctx, payload.data(), payload.size());
  EVP_DigestFinal_ex(ctx, out.data(), &len);
  return out;
}

}  // namespace vasana
