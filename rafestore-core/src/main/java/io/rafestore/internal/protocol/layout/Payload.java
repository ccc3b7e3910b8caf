package io.rafestore.internal.protocol.layout;

import io.rafestore.internal.protocol.context.Context;
import io.rafestore.spi.ObjectKey;

/**
 * What a RafeStore-mode write uploads for a new version, made before the write starts: the value
 * whole ({@link WholeUpload}: replicas or Reed-Solomon fragments, sealed or not), in parts ({@link
 * PartedPayload}), or inline in the writer's signed log ({@link InlinePayload}: no data upload).
 * The layout decides which, so the write only runs the phases over what it is given, and a value
 * passes the layout once on its way to the clouds.
 */
public sealed interface Payload permits WholeUpload, PartedPayload, InlinePayload {

  /** The name every holder stores this version's data (or its parts' base name) under. */
  ObjectKey dataObject();

  /** Whole copies or fragments, on which clouds in which order, and the chooser's reasons. */
  Placement placement();

  /**
   * The payload of {@code value} (not to be modified afterwards) as a new version of {@code key}:
   * in parts if the settings say a value of this size needs them, otherwise whole. Sealing and
   * coding of a whole value run here, on the caller's thread.
   */
  static Payload of(Context ctx, String key, byte[] value) {
    return of(ctx, key, value, null);
  }

  /**
   * As {@link #of(Context, String, byte[])}, with what the writer's log of the key can take ({@code
   * rooms}, null if unknown) for the layout chooser's inline candidate.
   */
  static Payload of(
      Context ctx,
      String key,
      byte[] value,
      io.rafestore.internal.protocol.selection.LayoutChooser.LogRooms rooms) {
    // The one decision point of a new value's layout: fixed by the settings (inline up to the
    // inline threshold, then copies or the configured code), or chosen for this value
    // (Placement.of asks the layout chooser); inline inside the signed log, in parts above the
    // part size, else whole.
    Placement placement = Placement.of(ctx, key, value.length, rooms);
    if (placement.inline()) {
      return InlinePayload.of(ctx, key, value, placement);
    }
    return ctx.settings.needsParts(value.length)
        ? PartedPayload.fromBytes(ctx, key, value, placement)
        : WholeUpload.of(ctx, key, value, placement);
  }

  /**
   * The payload of a value of {@code size} bytes of {@code key} that {@link PartedPayload#produce}
   * will read from a stream (above the part size: in parts, copies or coded as placed).
   */
  static PartedPayload ofStream(Context ctx, String key, long size) {
    return PartedPayload.fromStream(ctx, key, size, Placement.of(ctx, key, size));
  }
}
