package io.rafestore.internal.protocol.layout;

import io.rafestore.LayoutChoice;
import io.rafestore.ProtocolMode;
import io.rafestore.internal.codec.Aead;
import io.rafestore.internal.protocol.config.Settings;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
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
 * @param k fragments that rebuild the value, 0 for whole copies
 * @param order the data clouds in the order the write uses them; empty to let the write order them
 *     by the latency model for the upload's size (a fixed layout)
 * @param choice what the chooser decided and why (empty for a fixed layout)
 */
public record Placement(int k, List<String> order, Optional<LayoutChoice> choice) {

  public Placement {
    order = List.copyOf(order);
  }

  /** The placement of a new value of {@code size} bytes of {@code key}. */
  static Placement of(Context ctx, String key, long size) {
    Settings s = ctx.settings;
    if (!s.choosesLayout()) {
      return new Placement(s.erasureK(), List.of(), Optional.empty());
    }
    // What the holders store: sealing adds a nonce and a tag (per part above the part size).
    long stored = s.encryptValues() ? size + Aead.OVERHEAD : size;
    boolean readMSkipped =
        s.mode() == ProtocolMode.FAST && s.trustedWriters().size() == 1 && ctx.ownLog(key) != null;
    List<String> all = new ArrayList<>();
    for (Cloud c : ctx.clouds) {
      all.add(c.id());
    }
    List<String> data = ctx.dataOrder(stored);
    // INLINE: the chooser scores an inline candidate when asked (inlineAllowed); this branch has no
    // inline payload yet, so it is not asked. Where inline values exist, pass whether this value
    // may go inline here and make the inline payload in Payload.of for LayoutChoice.Kind.INLINE.
    LayoutChooser.Request request =
        new LayoutChooser.Request(
            stored,
            data,
            all,
            s.f(),
            s.mode(),
            readMSkipped,
            false,
            s.partSize(),
            s.partsInFlight(),
            s.objective());
    LayoutChooser.Decision d = LayoutChooser.choose(request, ctx, ctx.prices);
    LayoutChoice choice = d.toChoice();
    List<String> order = new ArrayList<>(choice.chosen().clouds());
    for (String c : data) {
      if (!order.contains(c)) {
        order.add(c);
      }
    }
    return new Placement(choice.chosen().k(), order, Optional.of(choice));
  }

  /** Whether each slot carries its own fragment. */
  public boolean coded() {
    return k > 0;
  }
}
