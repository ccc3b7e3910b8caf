package io.rafestore;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A write-back write acknowledged from the local journal ({@link RafeStore#writeBack}): its value
 * and intent are fsynced there, and the client writes it to the clouds in the background.
 *
 * <p>The two moments of a write-back write: this object exists once the write is <em>durable
 * locally</em> (it survives a crash of the process and of the machine, as far as the disk honours
 * fsync); {@link #onClouds()} completes once it is <em>durable on the clouds</em>, with the receipt
 * of the version it became, exactly as a {@link RafeStore#write} receipt. Thread-safe.
 *
 * @param key the key written
 * @param intent the write's intent id (32 hex digits), its name in the journal
 * @param size the value's size in bytes
 * @param journaled time from the call to the acknowledgement, on the client's scheduler
 * @param onClouds completes with the receipt once the write is on the clouds; it fails only if the
 *     client is closed first ({@link JournalException.Reason#CLOSED}: the journal keeps the write,
 *     and the next client with this journal writes it) or the journal fails. Failed cloud attempts
 *     are retried in the background, never reported here. Each call returns a new future:
 *     completing or cancelling it does not touch the write
 */
public record JournaledWrite(
    String key,
    String intent,
    long size,
    Duration journaled,
    CompletableFuture<WriteReceipt> onClouds) {
  public JournaledWrite {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(intent, "intent");
    Objects.requireNonNull(journaled, "journaled");
    // Not copied here: a copy is a dependent kept on the write's future until it reaches the
    // clouds, for every write of a backlog, read or not. The accessor hands out a copy each time.
    Objects.requireNonNull(onClouds, "onClouds");
  }

  @Override
  public CompletableFuture<WriteReceipt> onClouds() {
    return onClouds.copy();
  }
}
