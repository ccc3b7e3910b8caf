/**
 * The signed metadata: one log per writer per key ({@code LogEntry}, {@code MetadataLog}), its
 * versioned wire format and envelope of key shares ({@code MetadataCodec}), appending to a log
 * ({@code Logs}) and how a reader merges the logs it received into a view ({@code LogMerge}, {@code
 * View}). Described in design.md section 4.
 *
 * <p>The bottom of the protocol: it depends on no other protocol package. Internal; not exported.
 */
package io.rafestore.internal.protocol.metadata;
