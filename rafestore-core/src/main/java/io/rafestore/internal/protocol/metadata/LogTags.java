package io.rafestore.internal.protocol.metadata;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The last metadata object each cloud sent this client for each log, with the tag the cloud gave
 * it, so that the next readM of that log asks the cloud a conditional get ({@link
 * io.rafestore.spi.CloudDriver#getTagged}): an unchanged log then costs a request and no egress.
 *
 * <p><b>Why it is safe.</b> An entry is only ever used for the cloud that sent it: an "unchanged"
 * answer from that cloud stands for exactly the bytes that cloud sent before, and those bytes are
 * verified again like any answer (the codec's verified cache makes that cheap). A correct cloud
 * says "unchanged" only when its object still has the tag; a faulty cloud that says so falsely
 * makes the read see an old log of its own sending, which it could equally have sent again in full:
 * it gains no power it did not have (design.md, "Conditional metadata reads").
 *
 * <p>Bounded by {@link #maxBytes} of remembered objects, least recently used dropped first.
 * Thread-safe.
 */
public final class LogTags {
  /** One remembered answer: the cloud's tag and the bytes it sent with it. */
  public record Known(String tag, byte[] bytes) {}

  private final long maxBytes;
  private long bytes;
  private final LinkedHashMap<String, Known> known = new LinkedHashMap<>(16, 0.75f, true);

  /** Remembers at most {@code maxBytes} bytes of objects; 0 remembers nothing. */
  public LogTags(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  private static String slot(String cloudId, String object) {
    return cloudId + '\n' + object;
  }

  /** What {@code cloudId} last sent for {@code object} with a tag, or null. */
  public synchronized Known get(String cloudId, String object) {
    return known.get(slot(cloudId, object));
  }

  /**
   * Remembers that {@code cloudId} sent {@code data} for {@code object} with {@code tag}. The array
   * is kept as it is: the caller must not change it.
   */
  public synchronized void remember(String cloudId, String object, String tag, byte[] data) {
    forget(cloudId, object);
    if (data.length > maxBytes) {
      return;
    }
    known.put(slot(cloudId, object), new Known(tag, data));
    bytes += data.length;
    var it = known.entrySet().iterator();
    while (bytes > maxBytes && it.hasNext()) {
      Map.Entry<String, Known> eldest = it.next();
      bytes -= eldest.getValue().bytes().length;
      it.remove();
    }
  }

  /** Forgets what {@code cloudId} sent for {@code object}. */
  public synchronized void forget(String cloudId, String object) {
    Known old = known.remove(slot(cloudId, object));
    if (old != null) {
      bytes -= old.bytes().length;
    }
  }

  /** Objects remembered now. */
  public synchronized int size() {
    return known.size();
  }
}
