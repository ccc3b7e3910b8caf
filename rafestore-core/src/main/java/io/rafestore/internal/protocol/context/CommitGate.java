package io.rafestore.internal.protocol.context;

import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.MetadataLog;
import java.util.concurrent.CompletableFuture;

/**
 * What a write's writeM waits for between signing its log and sending it ({@code quorum.Commit}):
 * the write-back journal records that the entry was signed, and fsyncs that record, before any
 * cloud can receive the log (design.md, "Write-back journal"). Every other client passes at once.
 */
public interface CommitGate {
  /** No gate: the log is sent as soon as it is signed. */
  CommitGate OPEN = (key, next, entries, bytes) -> CompletableFuture.completedFuture(null);

  /**
   * Completes when {@code next} (signed as {@code bytes}, its new entries {@code entries}, as
   * signed: one for a write, several for a round that carries several) may be sent to the clouds;
   * if it fails, the writes fail and nothing is sent.
   */
  CompletableFuture<Void> beforePut(
      String key, MetadataLog next, java.util.List<LogEntry> entries, byte[] bytes);
}
