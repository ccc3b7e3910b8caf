package io.rafestore.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One page of a listing ({@link CloudDriver#list(String, String, int)}).
 *
 * @param objects at most the requested number of objects, in ascending name order, each named after
 *     the page's {@code startAfter} and starting with its prefix
 * @param more whether objects after the last one may follow (a driver may say so and then return an
 *     empty next page, but never says so on an empty page, nor says no while more follow; the
 *     protocol treats a page that breaks this as the end of that cloud's listing)
 */
public record ListPage(List<ObjectInfo> objects, boolean more) {
  public ListPage {
    objects = List.copyOf(Objects.requireNonNull(objects, "objects"));
  }

  /** The name of the last object, where the next page starts after; null if the page is empty. */
  public String last() {
    return objects.isEmpty() ? null : objects.get(objects.size() - 1).key().value();
  }

  /**
   * Checks the arguments of a paged listing.
   *
   * @throws NullPointerException if {@code prefix} or {@code startAfter} is null
   * @throws IllegalArgumentException if {@code limit} is below 1
   */
  public static void check(String prefix, String startAfter, int limit) {
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(startAfter, "startAfter (the empty string starts at the beginning)");
    if (limit < 1) {
      throw new IllegalArgumentException("listing page limit must be >= 1, was " + limit);
    }
  }

  /**
   * The page of a full listing (ascending, every name starting with {@code prefix}) that starts
   * after {@code startAfter}: what the default {@link CloudDriver#list(String, String, int)}
   * returns, and what drivers without native paging use.
   */
  public static ListPage of(List<ObjectInfo> all, String prefix, String startAfter, int limit) {
    check(prefix, startAfter, limit);
    List<ObjectInfo> out = new ArrayList<>(Math.min(limit, all.size()));
    boolean more = false;
    for (ObjectInfo o : all) {
      String name = o.key().value();
      if (!name.startsWith(prefix) || name.compareTo(startAfter) <= 0) {
        continue;
      }
      if (out.size() == limit) {
        more = true;
        break;
      }
      out.add(o);
    }
    return new ListPage(out, more);
  }
}
