package io.rafestore.internal.protocol.metadata;

import io.rafestore.CloudFault;
import io.rafestore.Version;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * What readM learned about a key: the newest validly signed log of each trusted writer among the n
 * - f replies, merged into one history.
 *
 * <p>The merged history is every value entry of every writer's log whose version is newer than the
 * newest tombstone, ordered by version (timestamp, then writer id). Because each writer's log only
 * grows (or is compacted below a tombstone) and readers always take the highest sequence, every
 * reader that sees a set of completed writes orders them the same way.
 */
public final class View {
  /** A version and the log entry that holds it. */
  public record Item(Version version, LogEntry entry) {}

  final String key;
  public final Map<String, MetadataLog> logs;
  public final long maxTimestamp;
  public final Version tombstone;

  /** Visible versions, newest first. */
  public final List<Item> visible;

  /** Value entries hidden by the newest tombstone (their data may still need deleting). */
  public final List<Item> hidden;

  /**
   * The newest garbage-collection watermark of any trusted writer: every version up to and
   * including it is collected (null if none). Honoured across logs, like tombstones.
   */
  public final Version collected;

  /**
   * Value entries still listed in some log but at or below the watermark (and above the newest
   * tombstone): collected, their data may still need deleting. Newest first.
   */
  public final List<Item> collectedItems;

  public final List<CloudFault> faults;
  public final boolean fromCache;

  /**
   * Key shares that the replies carried (confidentiality option): cloud id to writer to entry
   * timestamp to share encoding, not yet checked against any signed share hash.
   */
  public final Map<String, Map<String, Map<LogEntry.Id, byte[]>>> shares;

  public View(
      String key, Map<String, MetadataLog> logs, List<CloudFault> faults, boolean fromCache) {
    this(key, logs, faults, fromCache, Map.of());
  }

  public View(
      String key,
      Map<String, MetadataLog> logs,
      List<CloudFault> faults,
      boolean fromCache,
      Map<String, Map<String, Map<LogEntry.Id, byte[]>>> shares) {
    this.key = key;
    this.shares = Map.copyOf(shares);
    this.logs = Map.copyOf(logs);
    this.faults = List.copyOf(faults);
    this.fromCache = fromCache;
    long max = 0;
    Version newestTombstone = null;
    Version watermark = null;
    List<Item> all = new ArrayList<>();
    for (MetadataLog log : logs.values()) {
      max = Math.max(max, log.maxTimestamp());
      for (LogEntry e : log.entries()) {
        Version v = e.version(log.writer());
        if (e.kind() == LogEntry.Kind.TOMBSTONE) {
          if (newestTombstone == null || v.compareTo(newestTombstone) > 0) {
            newestTombstone = v;
          }
        } else if (e.kind() == LogEntry.Kind.COLLECTED) {
          Version through = e.collectedThrough();
          if (watermark == null || through.compareTo(watermark) > 0) {
            watermark = through;
          }
        } else {
          all.add(new Item(v, e));
        }
      }
    }
    all.sort(Comparator.comparing(Item::version).reversed());
    List<Item> vis = new ArrayList<>();
    List<Item> hid = new ArrayList<>();
    List<Item> col = new ArrayList<>();
    for (Item it : all) {
      if (newestTombstone != null && it.version().compareTo(newestTombstone) <= 0) {
        hid.add(it);
      } else if (watermark != null && it.version().compareTo(watermark) <= 0) {
        col.add(it);
      } else {
        vis.add(it);
      }
    }
    this.maxTimestamp = max;
    this.tombstone = newestTombstone;
    this.collected = watermark;
    this.visible = List.copyOf(vis);
    this.hidden = List.copyOf(hid);
    this.collectedItems = List.copyOf(col);
  }

  /**
   * Whether {@code version} is at or below the newest watermark and not deleted: asking for it gets
   * "version collected" rather than "not found".
   */
  public boolean isCollected(Version version) {
    return collected != null
        && version.compareTo(collected) <= 0
        && (tombstone == null || version.compareTo(tombstone) > 0);
  }

  public MetadataLog logOf(String writer) {
    MetadataLog log = logs.get(writer);
    return log == null ? MetadataLog.empty(key, writer) : log;
  }

  public Item find(Version version) {
    for (Item it : visible) {
      if (it.version().equals(version)) {
        return it;
      }
    }
    return null;
  }
}
