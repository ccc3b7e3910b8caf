package io.rafestore.examples.forum;

import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Records the requests the forum's clouds receive while a write is being timed, for the status
 * panel's timeline ({@link Timeline}).
 *
 * <p>Each cloud is wrapped in a {@link #wrap recording decorator}. A request is kept only if a
 * {@link Capture} is open for the key whose objects it names (the data objects {@code
 * d/<enc(key)>/...} and the metadata logs {@code m/<enc(key)>/...}, design.md section 3); every
 * other request is forgotten at once, so memory is bounded by the captures open (one per write in
 * progress) and the timelines the forum keeps.
 *
 * <p><b>Attribution.</b> The forum writes one key at a time per key ({@code Forum.post} serialises
 * writes per topic), so every put under the key's prefixes while its capture is open is that
 * write's. A metadata read of the same topic by a page view that runs during the write would be
 * attributed to it too; the forum does not read while posting, and a visitor's concurrent page view
 * is rare and shows as an extra readM bar.
 *
 * <p><b>Why a recorder beside the library's events.</b> The write's phases come from the library
 * ({@code WriteReceipt.phases()}, which {@link Timeline} draws and classifies by); the listener's
 * {@code cloudRequest} events carry each request's cloud, kind and duration but not the object it
 * named, so they cannot be told apart by key, and a post's bars need exactly that. This decorator
 * adds only the object name and the start of each request on the post's key.
 *
 * <p>Thread-safe.
 */
final class RequestRecorder {
  /** What a request asked for. */
  enum Kind {
    PUT,
    GET,
    DELETE,
    LIST
  }

  /** How a request ended; {@code RUNNING} until it does. */
  enum Outcome {
    RUNNING,
    OK,
    FAILED,
    CANCELLED
  }

  /** One request to one cloud; its end is filled in when it completes. */
  static final class Request {
    final String cloud;
    final Kind kind;
    final String object;
    final long startNanos;
    private volatile long endNanos;
    private volatile Outcome outcome = Outcome.RUNNING;

    Request(String cloud, Kind kind, String object, long startNanos) {
      this.cloud = cloud;
      this.kind = kind;
      this.object = object;
      this.startNanos = startNanos;
    }

    long endNanos() {
      return endNanos;
    }

    Outcome outcome() {
      return outcome;
    }

    void end(long nanos, Outcome how) {
      endNanos = nanos;
      outcome = how;
    }
  }

  /** The requests on one key's objects between {@link #capture} and {@link #close}. */
  final class Capture implements AutoCloseable {
    final String dataPrefix;
    final String metadataPrefix;
    final long startNanos;
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private volatile long endNanos;

    private Capture(String key, long startNanos) {
      String enc = encodeKey(key);
      this.dataPrefix = "d/" + enc + "/";
      this.metadataPrefix = "m/" + enc + "/";
      this.startNanos = startNanos;
    }

    boolean covers(String object) {
      return object.startsWith(dataPrefix) || object.startsWith(metadataPrefix);
    }

    /** Stops capturing; requests already captured keep their ends up to date. */
    @Override
    public void close() {
      if (endNanos == 0) {
        endNanos = clock.getAsLong();
      }
      open.remove(this);
    }

    /** The requests so far, in start order, and the capture's end ({@code 0} while open). */
    List<Request> requests() {
      return new ArrayList<>(requests);
    }

    long endNanos() {
      return endNanos;
    }
  }

  private final LongSupplier clock;
  private final List<Capture> open = new CopyOnWriteArrayList<>();

  RequestRecorder() {
    this(System::nanoTime);
  }

  RequestRecorder(LongSupplier clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  long now() {
    return clock.getAsLong();
  }

  /** Starts capturing the requests on {@code key}'s objects. */
  Capture capture(String key) {
    Capture c = new Capture(key, clock.getAsLong());
    open.add(c);
    return c;
  }

  /** {@code cloud} with every request it receives offered to the open captures. */
  CloudDriver wrap(CloudDriver cloud) {
    return new Recording(cloud);
  }

  /**
   * The percent-encoding of a key into one path segment, as design.md section 3 documents it: every
   * UTF-8 byte but {@code A-Z a-z 0-9 - _} (and {@code .} after the first byte) becomes {@code %XX}
   * in upper-case hex. Encodings longer than 200 characters are cut into segments; the forum's keys
   * ({@code forum/topics/} and an id of at most 64 characters) never are, and for a longer key the
   * first segment is still a prefix of every object name.
   */
  static String encodeKey(String key) {
    byte[] utf8 = key.getBytes(StandardCharsets.UTF_8);
    StringBuilder sb = new StringBuilder(utf8.length + 8);
    for (int i = 0; i < utf8.length; i++) {
      int b = utf8[i] & 0xFF;
      char c = (char) b;
      boolean plain =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '-'
              || c == '_'
              || (c == '.' && i > 0);
      if (b < 0x80 && plain) {
        sb.append(c);
      } else {
        sb.append('%')
            .append("0123456789ABCDEF".charAt(b >>> 4))
            .append("0123456789ABCDEF".charAt(b & 0xF));
      }
    }
    return sb.length() <= 200 ? sb.toString() : sb.substring(0, 200);
  }

  private List<Capture> capturing(String object) {
    List<Capture> out = null;
    for (Capture c : open) {
      if (c.covers(object)) {
        if (out == null) {
          out = new ArrayList<>(1);
        }
        out.add(c);
      }
    }
    return out == null ? List.of() : out;
  }

  /**
   * Times a request. The returned future is completed after the end is stamped, so the protocol's
   * own reactions (readM ending, writeDf starting) are always stamped after the request that caused
   * them; cancelling it cancels the request.
   */
  private <T> CompletableFuture<T> timed(
      String cloud, Kind kind, String object, Supplier<CompletableFuture<T>> call) {
    List<Capture> captures = capturing(object);
    if (captures.isEmpty()) {
      return call.get();
    }
    Request r = new Request(cloud, kind, object, clock.getAsLong());
    for (Capture c : captures) {
      c.requests.add(r);
    }
    CompletableFuture<T> inner = call.get();
    CompletableFuture<T> outer = new CompletableFuture<>();
    inner.whenComplete(
        (v, e) -> {
          if (r.outcome() == Outcome.RUNNING) {
            r.end(clock.getAsLong(), e == null ? Outcome.OK : Outcome.FAILED);
          }
          if (e == null) {
            outer.complete(v);
          } else {
            outer.completeExceptionally(e);
          }
        });
    outer.whenComplete(
        (v, e) -> {
          if (outer.isCancelled()) {
            if (r.outcome() == Outcome.RUNNING) {
              r.end(clock.getAsLong(), Outcome.CANCELLED);
            }
            inner.cancel(true);
          }
        });
    return outer;
  }

  /** The recording decorator: states only what it adds, timing; the rest is forwarded. */
  private final class Recording extends ForwardingCloud {
    Recording(CloudDriver delegate) {
      super(delegate);
    }

    @Override
    public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
      return timed(id(), Kind.PUT, key.value(), () -> delegate().put(key, data));
    }

    @Override
    public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
      return timed(id(), Kind.GET, key.value(), () -> delegate().get(key, range));
    }

    @Override
    public CompletableFuture<Void> delete(ObjectKey key) {
      return timed(id(), Kind.DELETE, key.value(), () -> delegate().delete(key));
    }

    @Override
    public CompletableFuture<List<ObjectInfo>> list(String prefix) {
      return timed(id(), Kind.LIST, prefix, () -> delegate().list(prefix));
    }
  }
}
