package io.rafestore.internal.protocol.metadata;

import io.rafestore.Version;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** How a writer derives its next log from its previous one. */
public final class Logs {
  private Logs() {}

  /**
   * The writer's next log: its previous entries that are still visible (newer than the newest
   * tombstone and the newest collection watermark any writer has written, counting {@code entry}
   * itself; older ones are dead and are dropped, which is how logs shrink after deletes and
   * collections), the newest tombstone and watermark if this log holds them (other writers' logs
   * may still list versions they cover), then {@code entry} stamped with the signing client's
   * {@code incarnation}. The sequence grows by one and the log is the signing incarnation's.
   *
   * <p>{@code previous} is the writer's log as readM merged it ({@link LogMerge}): when a crashed
   * incarnation of this writer left a log that readM saw, its entries are carried over here, so the
   * fork ends with this log.
   */
  public static MetadataLog append(
      MetadataLog previous, View view, LogEntry unstamped, long incarnation) {
    if (incarnation == 0) {
      throw new IllegalArgumentException("a client's incarnation is never 0");
    }
    LogEntry entry = unstamped.withIncarnation(incarnation);
    // The entry being appended counts too: a new tombstone or watermark compacts at once.
    Version tombstone = view.tombstone;
    Version collected = view.collected;
    if (entry.kind() == LogEntry.Kind.TOMBSTONE) {
      tombstone = max(tombstone, entry.version(previous.writer()));
    } else if (entry.kind() == LogEntry.Kind.COLLECTED) {
      collected = max(collected, entry.collectedThrough());
    }
    List<LogEntry> kept = new ArrayList<>();
    for (LogEntry e : previous.entries()) {
      if (e.timestamp() >= entry.timestamp()) {
        continue;
      }
      Version v = e.version(previous.writer());
      boolean keep =
          switch (e.kind()) {
            // A value survives unless a tombstone or a watermark covers it: compaction.
            case VALUE ->
                (tombstone == null || v.compareTo(tombstone) > 0)
                    && (collected == null || v.compareTo(collected) > 0);
            // The newest tombstone and the newest watermark stay: other writers' logs may still
            // list versions they cover until those writers next write, and readers must keep
            // hiding them. Older ones are superseded and dropped.
            case TOMBSTONE -> v.equals(tombstone);
            case COLLECTED -> e.collectedThrough().equals(collected) && !supersededBy(entry, e);
          };
      if (keep) {
        kept.add(e);
      }
    }
    kept.add(entry);
    return new MetadataLog(
        previous.key(), previous.writer(), previous.sequence() + 1, incarnation, kept);
  }

  /**
   * The writer's next log carrying several new entries at once (group commit): as {@link #append}
   * of each in turn, but one log, so its sequence grows by one, not by the number of entries. The
   * entries must be value entries whose timestamps strictly increase, all above {@code previous}'s
   * (each is then appended after the one before, and the log's entries keep strictly increasing by
   * (timestamp, incarnation)).
   *
   * @throws IllegalArgumentException if {@code unstamped} is empty, holds a tombstone or watermark,
   *     or its timestamps do not strictly increase
   */
  public static MetadataLog appendAll(
      MetadataLog previous, View view, List<LogEntry> unstamped, long incarnation) {
    if (unstamped.isEmpty()) {
      throw new IllegalArgumentException("a group commit appends at least one entry");
    }
    MetadataLog next = previous;
    long last = Long.MIN_VALUE;
    for (LogEntry e : unstamped) {
      if (e.kind() != LogEntry.Kind.VALUE || e.timestamp() <= last) {
        throw new IllegalArgumentException(
            "a group commit appends value entries of strictly increasing timestamps");
      }
      last = e.timestamp();
      next = append(next, view, e, incarnation);
    }
    return new MetadataLog(
        previous.key(), previous.writer(), previous.sequence() + 1, incarnation, next.entries());
  }

  /** The stored bytes of {@code log}'s inline values: what the inline log budget bounds. */
  public static long inlineBytes(MetadataLog log) {
    long total = 0;
    for (LogEntry e : log.entries()) {
      if (e.coding() == LogEntry.Coding.INLINE) {
        total += e.inlineUnsafe().length;
      }
    }
    return total;
  }

  /**
   * {@code log} with each inline entry that {@code packed} holds the packed form of ({@link
   * LogEntry#packs}: the same version and bytes, by entry id) replaced by it; everything else,
   * sequence and incarnation included, unchanged. Entries no longer in the log, or changed since
   * the pack was made, are left as they are.
   */
  public static MetadataLog replace(MetadataLog log, Map<LogEntry.Id, LogEntry> packed) {
    if (packed.isEmpty()) {
      return log;
    }
    List<LogEntry> out = new ArrayList<>(log.entries().size());
    boolean changed = false;
    for (LogEntry e : log.entries()) {
      LogEntry p = packed.get(e.id());
      if (p != null && p.packs(e)) {
        out.add(p);
        changed = true;
      } else {
        out.add(e);
      }
    }
    return changed
        ? new MetadataLog(log.key(), log.writer(), log.sequence(), log.incarnation(), out)
        : log;
  }

  /**
   * The writer's next log holding exactly {@code current}'s entries (a rewrite that adds nothing:
   * the packer's own writeM), signed by {@code incarnation} with the next sequence.
   */
  public static MetadataLog rewrite(MetadataLog current, long incarnation) {
    if (incarnation == 0) {
      throw new IllegalArgumentException("a client's incarnation is never 0");
    }
    return new MetadataLog(
        current.key(), current.writer(), current.sequence() + 1, incarnation, current.entries());
  }

  private static boolean supersededBy(LogEntry appended, LogEntry watermark) {
    return appended.kind() == LogEntry.Kind.COLLECTED
        && appended.collectedThrough().compareTo(watermark.collectedThrough()) >= 0;
  }

  private static Version max(Version a, Version b) {
    return a == null || b.compareTo(a) > 0 ? b : a;
  }
}
