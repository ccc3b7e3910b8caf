package io.rafestore.internal.protocol.layout;

import io.rafestore.internal.protocol.metadata.LogEntry;

/**
 * The one place that maps a signed entry to its {@link ValueLayout}: the entry's wire coding picks
 * how the stored bytes lie on the holders, and an entry with key shares is sealed around that. A
 * new layout is one more class here and its code in the metadata wire format; no other switch.
 */
public final class Layouts {
  private Layouts() {}

  /** The layout of value entry {@code entry}, sealed if the entry carries key shares. */
  public static ValueLayout of(LogEntry entry) {
    ValueLayout stored = stored(entry);
    return entry.isSealed() ? new SealedLayout(stored, entry) : stored;
  }

  /** How {@code entry}'s stored bytes lie on its holders, without the sealing around them. */
  static ValueLayout stored(LogEntry entry) {
    if (entry.kind() != LogEntry.Kind.VALUE) {
      throw new IllegalArgumentException("a " + entry.kind() + " entry stores no value");
    }
    return switch (entry.coding()) {
      case REPLICA -> new ReplicaLayout(entry);
      case REED_SOLOMON -> new ReedSolomonLayout(entry);
      case DEPSKY_CA -> new DepSkyLayout(entry);
      case PARTS -> new PartsLayout(entry);
      case CODED_PARTS -> new CodedPartsLayout(entry);
      case INLINE -> new InlineLayout(entry);
      case PACKED -> new PackedLayout(entry);
    };
  }
}
