package io.rafestore.internal.protocol;

import java.util.ArrayList;
import java.util.List;

/** How a writer derives its next log from its previous one. */
final class Logs {
  private Logs() {}

  /**
   * The writer's next log: its previous entries that are still visible (newer than the newest
   * tombstone any writer has written; older ones are dead and are dropped, which is how logs stay
   * small after deletes), then {@code entry}. The sequence grows by one.
   */
  static MetadataLog append(MetadataLog previous, View view, LogEntry entry) {
    List<LogEntry> kept = new ArrayList<>();
    for (LogEntry e : previous.entries()) {
      boolean live =
          view.tombstone == null || e.version(previous.writer()).compareTo(view.tombstone) > 0;
      if (live && e.timestamp() < entry.timestamp()) {
        kept.add(e);
      }
    }
    kept.add(entry);
    return new MetadataLog(previous.key(), previous.writer(), previous.sequence() + 1, kept);
  }
}
