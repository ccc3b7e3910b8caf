/**
 * Coding and cryptographic building blocks for DepSky-CA and RafeStore's confidential and
 * erasure-coded modes, JDK only: {@link io.rafestore.internal.codec.ReedSolomon} (systematic
 * erasure code over GF(2^8)), {@link io.rafestore.internal.codec.Shamir} (secret sharing over
 * GF(2^8)), {@link io.rafestore.internal.codec.Aead} (AES-256-GCM) and {@link
 * io.rafestore.internal.codec.Sha256}.
 *
 * <p>Internal: not part of the API and not exported. Every class is immutable or stateless and safe
 * for concurrent use. Bytes that may have come from an untrusted cloud are parsed with every length
 * checked against the remaining input before allocation, and rejected with {@link
 * io.rafestore.internal.codec.MalformedInputException}; mistakes by the calling code (bad
 * parameters) are {@link IllegalArgumentException}s.
 */
package io.rafestore.internal.codec;
