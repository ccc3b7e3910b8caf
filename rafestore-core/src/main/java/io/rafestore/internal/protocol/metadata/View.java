package io.rafestore.internal.protocol.metadata;

import io.rafestore.CloudFault;
import io.rafestore.Version;
import java.util.ArrayList;
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
    this(key, logs, faults, fromCache, shares, Map.of());
  }

  /**
   * Entries the merge of a writer's logs shadowed ({@link LogMerge.Merged#shadowed()}), by writer:
   * another representation of a value the merged log holds. Not versions of their own; kept only so
   * that garbage collection never deletes a pack they reference while they are live.
   */
  public final Map<String, List<LogEntry>> shadowed;

  /**
   * Pack objects ({@link LogEntry.Coding#PACKED}) that a live entry references, in the merged logs
   * or among the shadowed entries: deletion and collection never delete them.
   */
  public final java.util.Set<String> packsInUse;

  /** Pack objects any entry of the logs references, live or not: orphan collection keeps them. */
  public final java.util.Set<String> packsReferenced;

  /**
   * Versions of value entries that fewer than a quorum (n - f) of readM's valid replies held: a
   * write that reached too few clouds (a crashed writer's, or one still in flight), which a later
   * readM may not see at all. A collection never counts them among the versions it keeps (design.md
   * section 12, "Garbage collection"). Counted only by a collection's readM ({@code
   * MetadataRead.runForCollection}), the one user; empty in every other view.
   */
  public final java.util.Set<Version> underQuorum;

  /** A view of readM's merged logs and the entries each writer's merge shadowed. */
  public View(
      String key,
      Map<String, MetadataLog> logs,
      List<CloudFault> faults,
      boolean fromCache,
      Map<String, Map<String, Map<LogEntry.Id, byte[]>>> shares,
      Map<String, List<LogEntry>> shadowed) {
    this(key, logs, faults, fromCache, shares, shadowed, java.util.Set.of());
  }

  /** As above, with the versions that fewer than a quorum of the replies held. */
  public View(
      String key,
      Map<String, MetadataLog> logs,
      List<CloudFault> faults,
      boolean fromCache,
      Map<String, Map<String, Map<LogEntry.Id, byte[]>>> shares,
      Map<String, List<LogEntry>> shadowed,
      java.util.Set<Version> underQuorum) {
    this.key = key;
    this.underQuorum = java.util.Set.copyOf(underQuorum);
    this.shadowed = Map.copyOf(shadowed);
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
    all.sort((a, b) -> b.version().compareTo(a.version())); // newest first
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
    java.util.Set<String> inUse = new java.util.HashSet<>();
    java.util.Set<String> referenced = new java.util.HashSet<>();
    for (Item it : vis) {
      if (it.entry().pack() != null) {
        inUse.add(it.entry().pack().object());
      }
    }
    for (MetadataLog log : logs.values()) {
      for (LogEntry e : log.entries()) {
        if (e.pack() != null) {
          referenced.add(e.pack().object());
        }
      }
    }
    for (Map.Entry<String, List<LogEntry>> w : this.shadowed.entrySet()) {
      for (LogEntry e : w.getValue()) {
        if (e.pack() == null) {
          continue;
        }
        referenced.add(e.pack().object());
        Version v = e.version(w.getKey());
        if ((newestTombstone == null || v.compareTo(newestTombstone) > 0)
            && (watermark == null || v.compareTo(watermark) > 0)) {
          inUse.add(e.pack().object());
        }
      }
    }
    this.packsInUse = java.util.Set.copyOf(inUse);
    this.packsReferenced = java.util.Set.copyOf(referenced);
  }

  /**
   * Pack objects referenced by a live entry newer than {@code through} (in the merged logs or among
   * the shadowed entries): what a collection up to {@code through} must keep. With {@code through}
   * null, {@link #packsInUse}.
   */
  public java.util.Set<String> packsInUseAbove(Version through) {
    if (through == null) {
      return packsInUse;
    }
    java.util.Set<String> out = new java.util.HashSet<>();
    for (Item it : visible) {
      if (it.entry().pack() != null && it.version().compareTo(through) > 0) {
        out.add(it.entry().pack().object());
      }
    }
    for (Map.Entry<String, List<LogEntry>> w : shadowed.entrySet()) {
      for (LogEntry e : w.getValue()) {
        Version v = e.version(w.getKey());
        if (e.pack() != null
            && v.compareTo(through) > 0
            && (tombstone == null || v.compareTo(tombstone) > 0)) {
          out.add(e.pack().object());
        }
      }
    }
    return out;
  }

  /**
   * This view with {@code log} as its writer's log (the same faults, shares and shadowed entries):
   * a writer's own log with packed entries in place of inline ones, for writeM to append to.
   */
  public View withLog(MetadataLog log) {
    Map<String, MetadataLog> copy = new java.util.HashMap<>(logs);
    copy.put(log.writer(), log);
    return new View(key, copy, faults, fromCache, shares, shadowed, underQuorum);
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
