package io.rafestore;

import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Where a client keeps the verified stored bytes of the versions it read (the read tier, {@link
 * RafeStore.Builder#valueCache}): a whole stored value, or one stored part of a value in parts,
 * each named by a {@link Unit} made only of what never changes (key, version, part and the signed
 * SHA-256 of the bytes). A version names exactly one signed entry and its stored bytes never
 * change, so a unit can never stand for another version's bytes.
 *
 * <p>The client checks every byte a cache returns against the unit's signed SHA-256 and size before
 * it uses it, and drops (and reports, {@link CacheEvent}) a unit that does not match; so a cache
 * implementation cannot make a read return wrong bytes, whatever it does. It only puts bytes that
 * it checked against the signed hash itself. An implementation decides where units live (memory, a
 * directory) and which to evict; {@code io.rafestore.cache.CaffeineValueCache} in the {@code
 * rafestore-cache} module is the one RafeStore ships.
 *
 * <p>Implementations must be thread-safe: the client calls them from its executor's threads. A
 * cache serves one client ({@link #bind}); its methods must not block on the network.
 */
public interface ValueCache {

  /**
   * The client that uses this cache hands it where to report what it finds (corrupt, truncated or
   * foreign files dropped); called once, when the client is built. An implementation that keeps
   * state for one client refuses a second call with {@link IllegalStateException}.
   */
  default void bind(Consumer<CacheEvent> events) {}

  /**
   * The bytes of {@code unit}, if this cache holds them; the caller checks them against {@link
   * Unit#sha256} before use. Never null.
   */
  Optional<byte[]> get(Unit unit);

  /**
   * Whether {@code unit} is held, without loading it or counting an access (the client asks so
   * before it decides to skip a cloud). May be wrong by the time the caller asks {@link #get}.
   */
  boolean contains(Unit unit);

  /** Keeps {@code bytes} as {@code unit}'s (already checked against its signed hash). */
  void put(Unit unit, byte[] bytes);

  /**
   * Keeps {@code bytes} as {@code unit}'s (already checked), a unit whose eviction the client paid
   * for: a read fetched it itself after this cache had held it and evicted it, and no prefetch
   * brought it back on time (usually the first unit a repeated pattern reads, which nothing before
   * it predicts). A cache may keep such units in a share of its bound that other units do not
   * displace ({@link #protect}); the default puts it as any other.
   */
  default void putProtected(Unit unit, byte[] bytes) {
    put(unit, bytes);
  }

  /**
   * {@code unit}, if held, was read again and nothing predicted the read: evicted, it would cost a
   * read the whole round trip. A cache may move it to the share {@link #putProtected} fills; the
   * default does nothing. Called on a hit, so it must be cheap and must not block.
   */
  default void protect(Unit unit) {}

  /** Forgets {@code unit} (the client found its bytes wrong). */
  void remove(Unit unit);

  /** The bytes this cache holds now (in memory and on disk). */
  long weightedBytes();

  /**
   * Whether {@code bytes} more would fit now without evicting anything (an estimate). The client
   * puts a unit it can cheaply bring again on time (a stream's read-ahead) only if so, so that such
   * units fill free room but never displace others. The default, for a cache that cannot tell, says
   * yes.
   */
  default boolean hasRoom(long bytes) {
    return true;
  }

  /**
   * One unit of stored bytes: the whole stored value ({@code part} = {@link #WHOLE}) or stored part
   * {@code part} of version {@code version} of {@code key}, of {@code size} bytes whose SHA-256 is
   * {@code sha256}, as the version's signed entry says. Immutable; the hash is copied.
   *
   * @param key the user key
   * @param version the version
   * @param part {@link #WHOLE}, or the index of a stored part
   * @param sha256 the signed SHA-256 of the unit's stored bytes (32 bytes)
   * @param size the unit's stored size in bytes
   */
  record Unit(String key, Version version, int part, byte[] sha256, long size) {
    /** {@link #part} of a value stored whole. */
    public static final int WHOLE = -1;

    public Unit {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(version, "version");
      if (sha256 == null || sha256.length != 32) {
        throw new IllegalArgumentException("sha256 must be 32 bytes");
      }
      if (part < WHOLE) {
        throw new IllegalArgumentException("part must be >= -1, was " + part);
      }
      if (size < 0) {
        throw new IllegalArgumentException("size must be >= 0, was " + size);
      }
      sha256 = sha256.clone();
    }

    @Override
    public byte[] sha256() {
      return sha256.clone();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Unit u
          && part == u.part
          && size == u.size
          && key.equals(u.key)
          && version.equals(u.version)
          && Arrays.equals(sha256, u.sha256);
    }

    @Override
    public int hashCode() {
      return Objects.hash(key, version, part, size, Arrays.hashCode(sha256));
    }

    @Override
    public String toString() {
      return "Unit[" + key + " " + version + (part == WHOLE ? "" : " part " + part) + "]";
    }
  }
}
