/**
 * Which writers' logs a client accepts, and under which public key: the one question readM asks of
 * trust, whether it asks writer by writer ({@link WriterTrust#known}) or learns writers from a
 * listing ({@link WriterTrust#check}). Writers are trusted explicitly ({@code trustWriter}) or by a
 * certificate of a trusted operator key that is not revoked (design.md section 4, "Writer
 * certificates"). The cloud I/O (certificates and revocation lists read from a quorum) lives in
 * {@code quorum.CertifiedTrust}; this package holds the rules only.
 */
package io.rafestore.internal.protocol.trust;
