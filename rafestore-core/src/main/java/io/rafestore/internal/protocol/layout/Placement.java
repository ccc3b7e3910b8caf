package io.rafestore.internal.protocol.layout;

import io.rafestore.LayoutChoice;
import io.rafestore.ProtocolMode;
import io.rafestore.internal.codec.Aead;
import io.rafestore.internal.protocol.config.Settings;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.selection.LayoutChooser;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * How and where a new value goes, decided before its payload is made: whole copies ({@code k} 0) or
 * k data and f parity fragments, and the data clouds in the order writeDo and writeDf use them.
 * With a fixed layout ({@link io.rafestore.Layout#FIXED}) that is the settings' k and the latency
 * model's order at upload time; with {@link io.rafestore.Layout#AUTO} the {@link LayoutChooser}
 * decides, and the chosen clouds come first (writeDo), the other data clouds after them in
 * predicted order (writeDf and replacements). Immutable.
 *
 * @param inline whether the value goes inside the writer's signed log ({@link InlinePayload}): for
 *     a fixed layout, by the settings' inline threshold and budget; with {@code AUTO}, when the
 *     chooser picks {@link LayoutChoice.Kind#INLINE} among the candidates the threshold and budget
 *     allow
 * @param k fragments that rebuild the value, 0 for whole copies (and inline values)
 * @param order the data clouds in the order the write uses them; empty to let the write order them
 *     by the latency model for the upload's size (a fixed layout)
 * @param choice what the chooser decided and why (empty for a fixed layout)
 */
public record Placement(boolean inline, int k, List<String> order, Optional<LayoutChoice> choice) {

  public Placement {
    order = List.copyOf(order);
  }

  /** The placement of a new value of {@code size} bytes of {@code key}. */
  static Placement of(Context ctx, String key, long size) {
    return of(ctx, key, size, null);
  }

  /**
   * The placement of a new value of {@code size} bytes of {@code key}; {@code rooms} (null if none)
   * tells the chooser what the writer's log can take, so that an inline candidate is timed with the
   * bytes its log carries and any wait for packing.
   */
  static Placement of(Context ctx, String key, long size, LayoutChooser.LogRooms rooms) {
    Settings s = ctx.settings;
    boolean inlineAllowed = InlinePayload.fits(ctx, size);
    if (!s.choosesLayout()) {
      return inlineAllowed
          ? new Placement(true, 0, List.of(), Optional.empty())
          : new Placement(false, s.erasureK(), List.of(), Optional.empty());
    }
    // What the holders store: sealing adds a nonce and a tag (per part above the part size).
    long stored = s.encryptValues() ? size + Aead.OVERHEAD : size;
    boolean readMSkipped =
        s.mode() == ProtocolMode.FAST && s.soleWriter() && ctx.ownLog(key) != null;
    List<String> all = new ArrayList<>();
    for (Cloud c : ctx.clouds) {
      all.add(c.id());
    }
    List<String> data = ctx.dataOrder(stored);
    // The chooser scores an inline candidate only where the threshold and the log budget allow it.
    LayoutChooser.Request request =
        new LayoutChooser.Request(
            stored,
            data,
            all,
            s.f(),
            s.mode(),
            readMSkipped,
            inlineAllowed,
            s.partSize(),
            s.partsInFlight(),
            s.objective(),
            inlineAllowed && rooms != null
                ? rooms.logRoom(key, LogEntry.storedPartSize(size, s.encryptValues()))
                : LayoutChooser.LogRoom.UNKNOWN);
    LayoutChooser.Decision d = LayoutChooser.choose(request, ctx, ctx.prices);
    LayoutChoice choice = d.toChoice();
    List<String> order = new ArrayList<>(choice.chosen().clouds());
    for (String c : data) {
      if (!order.contains(c)) {
        order.add(c);
      }
    }
    boolean inline = choice.chosen().kind() == LayoutChoice.Kind.INLINE;
    return new Placement(
        inline, choice.chosen().k(), inline ? List.of() : order, Optional.of(choice));
  }

  /** Whether each slot carries its own fragment. */
  public boolean coded() {
    return k > 0;
  }
}
