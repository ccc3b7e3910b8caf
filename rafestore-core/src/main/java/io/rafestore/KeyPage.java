package io.rafestore;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One page of the store-wide key listing ({@link RafeStore#keys(String, int)}).
 *
 * @param keys keys in listing order (the order of their encoded object names)
 * @param more whether keys may follow: ask again with {@link #next()} as {@code after}
 */
public record KeyPage(List<String> keys, boolean more) {
  public KeyPage {
    keys = List.copyOf(Objects.requireNonNull(keys, "keys"));
  }

  /** The {@code after} argument of the next page, if there is one. */
  public Optional<String> next() {
    return more && !keys.isEmpty() ? Optional.of(keys.get(keys.size() - 1)) : Optional.empty();
  }
}
