package io.rafestore.internal.protocol.metadata;

import java.util.List;
import java.util.Objects;

/**
 * A writer's signed metadata log for one key, stored as one object {@code m/<key>/<writer>} on
 * every cloud.
 *
 * <p><b>Why one log per writer per key.</b> Several writers may append to one key at once. If they
 * shared one metadata object, concurrent writers would overwrite each other's versions. Each writer
 * instead owns its log and only ever replaces it with a longer (or compacted) one; readers read
 * every trusted writer's log and merge them. No locks and no clock assumptions are needed.
 *
 * <p><b>Invariants</b> (kept by the writer, checked by readers where they can be):
 *
 * <ul>
 *   <li>{@code sequence} grows by one each time the writer stores a new log for the key, so of two
 *       validly signed logs of one incarnation a reader prefers the higher sequence: a cloud
 *       replaying an older log loses.
 *   <li>{@code incarnation} is the signing client's ({@link io.rafestore.Version#incarnation()}). A
 *       client never signs two different logs of one key with the same sequence; two incarnations
 *       of one writer id may (a restarted writer that did not see its predecessor's last, partly
 *       stored log), and readers then merge them ({@link LogMerge}) instead of picking one.
 *   <li>Entries are strictly increasing by (timestamp, incarnation) within a log: the version order
 *       of one writer's versions.
 *   <li>The log names its key and writer and is signed over both, so a cloud cannot pass one key's
 *       (or writer's) log off as another's.
 * </ul>
 *
 * @param key the user key
 * @param writer the writer that signs this log
 * @param sequence the log's sequence number, {@code >= 1}
 * @param incarnation the incarnation of the client that signed it (0 for logs written before
 *     incarnations existed)
 * @param entries the entries, by increasing (timestamp, incarnation)
 */
public record MetadataLog(
    String key, String writer, long sequence, long incarnation, List<LogEntry> entries) {
  public MetadataLog {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(writer, "writer");
    if (sequence < 0) {
      throw new IllegalArgumentException("sequence must be >= 0");
    }
    entries = List.copyOf(entries);
    LogEntry last = null;
    for (LogEntry e : entries) {
      if (last != null && LogEntry.order(last, e) >= 0) {
        throw new IllegalArgumentException(
            "log entries must have increasing (timestamp, incarnation)");
      }
      last = e;
    }
  }

  /** The empty log a writer starts from (sequence 0, never stored). */
  static MetadataLog empty(String key, String writer) {
    return new MetadataLog(key, writer, 0, 0, List.of());
  }

  /** Highest timestamp in the log, 0 if empty. */
  long maxTimestamp() {
    return entries.isEmpty() ? 0 : entries.get(entries.size() - 1).timestamp();
  }
}
