/**
 * The write-back journal's files ({@link io.rafestore.internal.journal.Journal}): segment files of
 * checksummed, fsynced frames of intent, commit and done records, bounded by bytes and entries, and
 * their recovery after a crash (design.md, "Write-back journal"). Knows nothing of the protocol;
 * {@code io.rafestore.internal.protocol.write.WriteBackQueue} gives the records their meaning.
 *
 * <p>Internal: not part of the API and not exported.
 */
package io.rafestore.internal.journal;
