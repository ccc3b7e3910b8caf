package io.rafestore.internal.protocol.metadata;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How a reader combines the validly signed logs of one writer for one key that different clouds
 * returned.
 *
 * <p>Within one incarnation of the writer ({@link MetadataLog#incarnation()}) logs form a chain: a
 * client stores its logs of a key one after another, each holding every live entry of the one
 * before and a sequence one higher, so the highest sequence supersedes the rest, and a cloud that
 * replays an older one loses.
 *
 * <p>Across incarnations they need not. A writer that crashed during writeM may have left its last
 * log, with sequence s + 1 and a version X, on fewer than n - f clouds; restarted (a new
 * incarnation), the same writer id may read n - f logs that do not include it and write its own log
 * of sequence s + 1 with a completed version Y. Neither log contains the other. Picking one of them
 * by a rule would hide Y from the readers that also see X (the bug this class exists to prevent),
 * so a reader keeps the best log of each incarnation and takes the <b>union</b> of their entries.
 * The entries cannot clash: an entry is named by its (timestamp, incarnation), and one incarnation
 * never signs two different entries under one name. The union is the writer's log as readers see
 * it: X appears in history under its own version (a crashed write may take effect), Y under its
 * own, and the writer's next log, built from this union, carries both, which ends the fork.
 *
 * <p>Stale logs of an older incarnation that a lagging cloud still holds add nothing visible: every
 * entry of a log the newer incarnation read is in the newer incarnation's logs, or was dropped only
 * under a tombstone or watermark the newer logs keep.
 */
public final class LogMerge {
  private LogMerge() {}

  /**
   * The newer of two validly signed logs of one writer: the higher sequence, then the higher
   * incarnation. Of one incarnation, the higher sequence supersedes; across incarnations this order
   * only says which log is compared against (stale reports, which log repair copies), never which
   * entries are seen: that is {@link #merge}. Two different logs of one sequence and incarnation
   * are never signed by a correct writer; they are ordered by content so every reader agrees.
   */
  public static MetadataLog newer(MetadataLog a, MetadataLog b) {
    if (a.sequence() != b.sequence()) {
      return a.sequence() > b.sequence() ? a : b;
    }
    if (a.incarnation() != b.incarnation()) {
      return a.incarnation() > b.incarnation() ? a : b;
    }
    if (a.maxTimestamp() != b.maxTimestamp()) {
      return a.maxTimestamp() > b.maxTimestamp() ? a : b;
    }
    if (a.entries().size() != b.entries().size()) {
      return a.entries().size() > b.entries().size() ? a : b;
    }
    if (a.entries().isEmpty()) {
      return a;
    }
    String an = a.entries().get(a.entries().size() - 1).dataObject();
    String bn = b.entries().get(b.entries().size() - 1).dataObject();
    return an.compareTo(bn) >= 0 ? a : b;
  }

  /**
   * The writer's log as readers see it, from the valid logs (of one key and writer) that clouds
   * returned: the newest log of each incarnation; if there is one incarnation, its newest log
   * itself; otherwise a log (never signed or stored as such) with the union of their entries, the
   * highest sequence and the newest log's incarnation.
   *
   * @param logs at least one log, all of one key and writer
   */
  public static MetadataLog merge(Collection<MetadataLog> logs) {
    return mergeWithShadowed(logs).log();
  }

  /**
   * A writer's merged log and the entries it shadows: entries of the newest log of some incarnation
   * that the merge did not take because another representation of the same entry (an inline value
   * and its packed form, section 5 "Inline values and packing") won. They name the same stored
   * bytes; garbage collection must still keep the packs they reference, since another reader's
   * merge may take them.
   */
  public record Merged(MetadataLog log, List<LogEntry> shadowed) {
    public Merged {
      shadowed = List.copyOf(shadowed);
    }
  }

  /**
   * {@link #merge}, and the entries it shadows. Of two entries with one id (one incarnation may
   * sign an inline value and later its packed form), an {@link LogEntry.Coding#INLINE} one is taken
   * whichever log holds it: its bytes are in hand and can never be missing; otherwise the newer
   * log's. The choice depends only on the set of logs, so every reader of one set agrees.
   */
  public static Merged mergeWithShadowed(Collection<MetadataLog> logs) {
    Map<Long, MetadataLog> newestPerIncarnation = new HashMap<>();
    MetadataLog newest = null;
    for (MetadataLog log : logs) {
      newestPerIncarnation.merge(log.incarnation(), log, LogMerge::newer);
      newest = newest == null ? log : newer(newest, log);
    }
    if (newest == null) {
      throw new IllegalArgumentException("no log to merge");
    }
    if (newestPerIncarnation.size() == 1) {
      return new Merged(newest, List.of());
    }
    List<MetadataLog> ordered = new ArrayList<>(newestPerIncarnation.values());
    // Newest first, so an entry that two logs hold is taken from the newer (they are equal, or
    // two representations of one value) unless an older log holds it inline.
    ordered.sort((a, b) -> a == b ? 0 : newer(a, b) == a ? -1 : 1);
    TreeMap<LogEntry.Id, LogEntry> union = new TreeMap<>();
    for (MetadataLog log : ordered) {
      for (LogEntry e : log.entries()) {
        LogEntry taken = union.get(e.id());
        if (taken == null
            || (e.coding() == LogEntry.Coding.INLINE && taken.coding() != LogEntry.Coding.INLINE)) {
          union.put(e.id(), e);
        }
      }
    }
    List<LogEntry> shadowed = new ArrayList<>();
    for (MetadataLog log : ordered) {
      for (LogEntry e : log.entries()) {
        LogEntry taken = union.get(e.id());
        if (taken != e && !taken.equals(e) && !shadowed.contains(e)) {
          shadowed.add(e);
        }
      }
    }
    return new Merged(
        new MetadataLog(
            newest.key(),
            newest.writer(),
            newest.sequence(),
            newest.incarnation(),
            new ArrayList<>(union.values())),
        shadowed);
  }

  /**
   * Whether storing {@code log} in place of any of the writer's logs loses nothing readers can see
   * in {@code merged} (the writer's merged log; {@code view}, the key's merged view): it holds
   * every visible version of the writer and the writer's newest tombstone and watermark. Repair
   * copies only such a log.
   */
  public static boolean covers(MetadataLog log, MetadataLog merged, View view) {
    java.util.Set<LogEntry.Id> held = new java.util.HashSet<>();
    for (LogEntry e : log.entries()) {
      held.add(e.id());
    }
    for (View.Item it : view.visible) {
      if (it.version().writer().equals(merged.writer()) && !held.contains(it.entry().id())) {
        return false;
      }
    }
    for (LogEntry e : merged.entries()) {
      boolean inForce =
          (e.kind() == LogEntry.Kind.TOMBSTONE && e.version(merged.writer()).equals(view.tombstone))
              || (e.kind() == LogEntry.Kind.COLLECTED
                  && e.collectedThrough().equals(view.collected));
      if (inForce && !held.contains(e.id())) {
        return false;
      }
    }
    return true;
  }
}
