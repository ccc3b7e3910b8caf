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

  /**
   * The payload of {@code value} (not to be modified afterwards) as a new version of {@code key}:
   * in parts if the settings say a value of this size needs them, otherwise whole. Sealing and
   * coding of a whole value run here, on the caller's thread.
   */
  static Payload of(Context ctx, String key, byte[] value) {
    // The one decision point of a new value's layout: inline (inside the signed log), in parts,
    // or whole. A per-value chooser (latency or cost objective) replaces these rules here.
    if (InlinePayload.fits(ctx, value.length)) {
      return InlinePayload.of(ctx, key, value);
    }
    return ctx.settings.needsParts(value.length)
        ? PartedPayload.fromBytes(ctx, key, value)
        : WholeUpload.of(ctx, key, value);
  }
}
