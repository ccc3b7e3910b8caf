package io.rafestore.clouds;

import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ListPage;
import io.rafestore.spi.MultipartUpload;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.TaggedGet;
import io.rafestore.spi.support.Futures;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Makes a driver lie, switchable at run time: the arbitrary (Byzantine) faults the protocol must
 * mask, as opposed to the crashes and delays of {@link FaultyCloud}. A {@link Behaviour} applies to
 * every object or only to those whose name matches a predicate (say, only metadata); other requests
 * pass through honestly. The lies:
 *
 * <ul>
 *   <li>{@link Behaviour#CORRUPT}: gets return the stored bytes with one to four bytes flipped (an
 *       empty object comes back as one random byte);
 *   <li>{@link Behaviour#STALE}: gets return the version put before the current one under the same
 *       name (even after a delete), or the current one if there is none older;
 *   <li>{@link Behaviour#OTHER_KEY}: gets return the latest bytes put under another name, or the
 *       true object if no other name was ever put;
 *   <li>{@link Behaviour#DROP_WRITES}: puts and deletes are acknowledged without reaching the
 *       cloud, and listings omit the affected objects;
 *   <li>{@link Behaviour#GARBLE}: gets return random bytes of the true object's length;
 *   <li>{@link Behaviour#CUSTOM}: gets return what a caller-given function makes of the true bytes
 *       (for instance metadata re-signed with an untrusted key);
 *   <li>{@link Behaviour#CORRUPT_WRITES}: puts and multipart parts are acknowledged but stored with
 *       one to four bytes flipped, so a completed multipart upload holds garbage; reads are honest
 *       about what is stored.
 * </ul>
 *
 * <p>The delegate's native multipart upload ({@link #multipart()}) is offered with the same lies on
 * its writes: under {@link Behaviour#DROP_WRITES} beginning, parts and complete are all
 * acknowledged and nothing is stored, under {@link Behaviour#CORRUPT_WRITES} parts are corrupted.
 * The history for stale and other-key answers covers puts only.
 *
 * <p>To serve stale and other-key answers, this decorator keeps a copy of the last two versions put
 * through it under every name, whatever the behaviour: it is a test tool, not for large production
 * runs. Missing objects and the wrapped driver's errors pass through. All randomness comes from a
 * generator seeded at construction, so the same calls in the same order get the same lies.
 * Cancelling a returned future cancels the wrapped driver's.
 *
 * <p>Conditional gets ({@link #getTagged}) and puts ({@link #putIfMatch}) are offered when the
 * wrapped driver offers them, with the same lies: a tagged answer that carries bytes carries the
 * bytes a plain get would (with the wrapped driver's true tag); a stale liar asked with a tag the
 * object no longer has answers "unchanged", keeping the caller on what it had; an "unchanged"
 * answer of the wrapped driver passes through. A conditional put is dropped (acknowledged as
 * stored) or stored corrupted as a put is.
 *
 * <p>Thread-safe: the behaviour can be switched from any thread; each call obeys the behaviour in
 * force when it was made.
 */
public final class ByzantineCloud extends ForwardingCloud {

  /** How the cloud lies. */
  public enum Behaviour {
    /** No lies. */
    HONEST,
    /** Gets return the stored bytes with a few bytes flipped. */
    CORRUPT,
    /** Gets return an older version of the object. */
    STALE,
    /** Gets return another object. */
    OTHER_KEY,
    /** Puts and deletes are acknowledged and ignored; listings omit the affected objects. */
    DROP_WRITES,
    /** Gets return random bytes. */
    GARBLE,
    /** Gets return what a caller-given function makes of the true bytes. */
    CUSTOM,
    /** Puts and multipart parts are acknowledged but stored with a few bytes flipped. */
    CORRUPT_WRITES
  }

  private record State(
      Behaviour behaviour, Predicate<ObjectKey> affected, UnaryOperator<byte[]> forgery) {
    boolean lies(ObjectKey key) {
      return behaviour != Behaviour.HONEST && affected.test(key);
    }
  }

  /** The last two versions put under one name; {@code previous} may be null. */
  private record Versions(byte[] previous, byte[] current) {}

  private static final State HONEST = new State(Behaviour.HONEST, k -> false, null);

  private final Random random;
  private final Map<ObjectKey, Versions> history = new ConcurrentHashMap<>();
  private final AtomicLong lies = new AtomicLong();
  private volatile State state = HONEST;

  /** Wraps {@code delegate}, honest at first; {@code seed} seeds every random choice. */
  public ByzantineCloud(CloudDriver delegate, long seed) {
    super(delegate);
    this.random = new Random(seed);
  }

  /**
   * Lies in this way about every object from now on. For {@link Behaviour#CUSTOM} use {@link
   * #forge}.
   */
  public ByzantineCloud behave(Behaviour behaviour) {
    return behave(behaviour, key -> true);
  }

  /** Lies in this way about the objects whose names match {@code affected} from now on. */
  public ByzantineCloud behave(Behaviour behaviour, Predicate<ObjectKey> affected) {
    Objects.requireNonNull(behaviour, "behaviour");
    Objects.requireNonNull(affected, "affected");
    if (behaviour == Behaviour.CUSTOM) {
      throw new IllegalArgumentException("CUSTOM needs a forgery function: use forge(...)");
    }
    state = behaviour == Behaviour.HONEST ? HONEST : new State(behaviour, affected, null);
    return this;
  }

  /**
   * From now on, gets of every object return {@code forgery} applied to the true bytes (or range);
   * the function gets its own copy and may modify and return it.
   */
  public ByzantineCloud forge(UnaryOperator<byte[]> forgery) {
    return forge(forgery, key -> true);
  }

  /** Like {@link #forge(UnaryOperator)}, for the objects whose names match {@code affected}. */
  public ByzantineCloud forge(UnaryOperator<byte[]> forgery, Predicate<ObjectKey> affected) {
    Objects.requireNonNull(forgery, "forgery");
    Objects.requireNonNull(affected, "affected");
    state = new State(Behaviour.CUSTOM, affected, forgery);
    return this;
  }

  /** Stops lying. */
  public ByzantineCloud honest() {
    state = HONEST;
    return this;
  }

  /** The current behaviour. */
  public Behaviour behaviour() {
    return state.behaviour;
  }

  /** How many answers so far were lies (altered reads, dropped writes, trimmed listings). */
  public long liesTold() {
    return lies.get();
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(data, "data");
    return write(key, data, null, b -> delegate().put(key, b), x -> true);
  }

  /**
   * A put or a conditional put, lies included: a dropping liar acknowledges ({@code acknowledged})
   * without sending, a corrupting one sends altered bytes; otherwise the bytes go as given and,
   * once the wrapped driver says they were {@code stored}, become the key's newest remembered
   * version (what a stale liar answers later).
   */
  private <T> CompletableFuture<T> write(
      ObjectKey key,
      byte[] data,
      T acknowledged,
      java.util.function.Function<byte[], CompletableFuture<T>> send,
      java.util.function.Predicate<T> stored) {
    State s = state;
    if (s.behaviour == Behaviour.DROP_WRITES && s.affected.test(key)) {
      lies.incrementAndGet();
      return CompletableFuture.completedFuture(acknowledged);
    }
    byte[] copy = data.clone();
    if (s.behaviour == Behaviour.CORRUPT_WRITES && s.affected.test(key)) {
      lies.incrementAndGet();
      return Futures.relay(send.apply(corrupt(copy)));
    }
    CompletableFuture<T> inner = send.apply(data);
    inner.thenAccept(
        r -> {
          if (stored.test(r)) {
            history.compute(key, (k, v) -> new Versions(v == null ? null : v.current, copy));
          }
        });
    return Futures.relay(inner);
  }

  @Override
  public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(range, "range");
    State s = state;
    if (!s.lies(key) || s.behaviour == Behaviour.CORRUPT_WRITES) {
      return Futures.relay(delegate().get(key, range));
    }
    byte[] remembered = remembered(s, key, range);
    if (remembered != null) {
      return CompletableFuture.completedFuture(remembered);
    }
    return Futures.relay(delegate().get(key, range), b -> alter(s, b));
  }

  /**
   * A stale or other-key liar's answer from the history (counted as a lie), or null when it has
   * none to give (then the true bytes, passed through {@link #alter}, which leaves them as they
   * are).
   */
  private byte[] remembered(State s, ObjectKey key, Optional<ByteRange> range) {
    byte[] told = null;
    if (s.behaviour == Behaviour.STALE) {
      Versions v = history.get(key);
      told = v == null ? null : v.previous;
    } else if (s.behaviour == Behaviour.OTHER_KEY) {
      told = otherObject(key);
    }
    if (told == null) {
      return null;
    }
    lies.incrementAndGet();
    return cut(told, range);
  }

  /** The true bytes as a corrupting, garbling or forging liar tells them (others: as they are). */
  private byte[] alter(State s, byte[] truth) {
    UnaryOperator<byte[]> lie =
        switch (s.behaviour) {
          case CORRUPT -> this::corrupt;
          case GARBLE -> this::garble;
          case CUSTOM -> s.forgery;
          default -> null; // STALE and OTHER_KEY without history, DROP_WRITES: honest reads
        };
    if (lie == null) {
      return truth;
    }
    lies.incrementAndGet();
    return lie.apply(truth);
  }

  @Override
  public boolean conditionalGets() {
    return delegate().conditionalGets();
  }

  /**
   * As {@link #get}, lies included, in one request to the wrapped driver: the tag is the wrapped
   * driver's (a liar keeps the true tag), an "unchanged" answer passes through, and a stale liar
   * answers a tag the object no longer has "unchanged".
   */
  @Override
  public CompletableFuture<TaggedGet> getTagged(
      ObjectKey key, Optional<ByteRange> range, Optional<String> ifNoneMatch) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(range, "range");
    Objects.requireNonNull(ifNoneMatch, "ifNoneMatch");
    State s = state;
    CompletableFuture<TaggedGet> tagged = delegate().getTagged(key, range, ifNoneMatch);
    if (!s.lies(key) || s.behaviour == Behaviour.CORRUPT_WRITES) {
      return Futures.relay(tagged);
    }
    return Futures.relay(
        tagged,
        t -> {
          if (t.unchanged()) {
            return t;
          }
          if (s.behaviour == Behaviour.STALE && ifNoneMatch.isPresent()) {
            lies.incrementAndGet();
            return TaggedGet.unchanged(ifNoneMatch.get());
          }
          byte[] remembered = remembered(s, key, range);
          return TaggedGet.of(
              remembered != null ? remembered : alter(s, t.data()), t.tag().orElse(null));
        });
  }

  @Override
  public boolean conditionalPuts() {
    return delegate().conditionalPuts();
  }

  @Override
  public CompletableFuture<Boolean> putIfMatch(
      ObjectKey key, byte[] data, Optional<String> ifMatch) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(data, "data");
    Objects.requireNonNull(ifMatch, "ifMatch");
    return write(
        key, data, true, b -> delegate().putIfMatch(key, b, ifMatch), Boolean::booleanValue);
  }

  @Override
  public CompletableFuture<Void> delete(ObjectKey key) {
    Objects.requireNonNull(key, "key");
    State s = state;
    if (s.behaviour == Behaviour.DROP_WRITES && s.affected.test(key)) {
      lies.incrementAndGet();
      return CompletableFuture.completedFuture(null);
    }
    return Futures.relay(delegate().delete(key));
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    State s = state;
    if (s.behaviour != Behaviour.DROP_WRITES) {
      return Futures.relay(delegate().list(prefix));
    }
    return altered(
        delegate().list(prefix),
        entries -> {
          List<ObjectInfo> kept = new ArrayList<>();
          for (ObjectInfo info : entries) {
            if (!s.affected.test(info.key())) {
              kept.add(info);
            }
          }
          return kept;
        });
  }

  /** Under {@link Behaviour#DROP_WRITES} an upload is acknowledged throughout, storing nothing. */
  @Override
  protected CompletableFuture<MultipartUpload> beginUpload(
      ObjectKey key, Supplier<CompletableFuture<MultipartUpload>> call) {
    State s = state;
    if (s.behaviour == Behaviour.DROP_WRITES && s.affected.test(key)) {
      lies.incrementAndGet();
      return CompletableFuture.completedFuture(new DroppedUpload(key));
    }
    return call.get();
  }

  /** Under {@link Behaviour#CORRUPT_WRITES} a part is stored with a few bytes flipped. */
  @Override
  protected CompletableFuture<Void> putPart(
      ObjectKey key, int index, byte[] data, Function<byte[], CompletableFuture<Void>> call) {
    State s = state;
    if (s.behaviour == Behaviour.CORRUPT_WRITES && s.affected.test(key)) {
      lies.incrementAndGet();
      return call.apply(corrupt(data.clone()));
    }
    return call.apply(data);
  }

  /** An upload that acknowledges everything and stores nothing ({@link Behaviour#DROP_WRITES}). */
  private record DroppedUpload(ObjectKey key) implements MultipartUpload {
    @Override
    public CompletableFuture<Void> putPart(int index, byte[] data) {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> complete(int count) {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> abort() {
      return CompletableFuture.completedFuture(null);
    }
  }

  /** A page, with the objects of dropped writes left out as {@link #list(String)} does. */
  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int limit) {
    ListPage.check(prefix, startAfter, limit);
    State s = state;
    if (s.behaviour != Behaviour.DROP_WRITES) {
      return Futures.relay(delegate().list(prefix, startAfter, limit));
    }
    return altered(
        delegate().list(prefix, startAfter, limit),
        page -> {
          List<ObjectInfo> kept = new ArrayList<>();
          for (ObjectInfo info : page.objects()) {
            if (!s.affected.test(info.key())) {
              kept.add(info);
            }
          }
          return new ListPage(kept, page.more());
        });
  }

  /**
   * The wrapped driver's answer passed through {@code lie}, with cancellation reaching the wrapped
   * driver's future.
   */
  private <T> CompletableFuture<T> altered(CompletableFuture<T> inner, UnaryOperator<T> lie) {
    return Futures.relay(
        inner,
        value -> {
          lies.incrementAndGet();
          return lie.apply(value);
        });
  }

  private byte[] corrupt(byte[] bytes) {
    synchronized (random) {
      if (bytes.length == 0) {
        return new byte[] {(byte) random.nextInt(256)};
      }
      int flips = 1 + random.nextInt(4);
      for (int i = 0; i < flips; i++) {
        bytes[random.nextInt(bytes.length)] ^= (byte) (1 + random.nextInt(255));
      }
      return bytes;
    }
  }

  private byte[] garble(byte[] bytes) {
    byte[] noise = new byte[bytes.length];
    synchronized (random) {
      random.nextBytes(noise);
    }
    return noise;
  }

  /** The latest bytes put under a name other than {@code key}, chosen at random; or null. */
  private byte[] otherObject(ObjectKey key) {
    List<ObjectKey> others = new ArrayList<>(new TreeSet<>(history.keySet()));
    others.remove(key);
    if (others.isEmpty()) {
      return null;
    }
    ObjectKey chosen;
    synchronized (random) {
      chosen = others.get(random.nextInt(others.size()));
    }
    Versions v = history.get(chosen);
    return v == null ? null : v.current;
  }

  private static byte[] cut(byte[] whole, Optional<ByteRange> range) {
    if (range.isEmpty()) {
      return whole.clone();
    }
    long[] span = range.get().clip(whole.length);
    return Arrays.copyOfRange(whole, (int) span[0], (int) span[1]);
  }

  @Override
  public String toString() {
    return "ByzantineCloud[" + id() + ", " + state.behaviour + "]";
  }
}
