package io.rafestore;

import java.util.List;
import java.util.Optional;

/**
 * One page of a key's versions, newest first.
 *
 * @param key the key
 * @param versions up to the requested number of versions, newest first
 * @param nextBefore pass to {@link RafeStore#history(String, Optional, int)} to get the next
 *     (older) page; empty on the last page
 */
public record HistoryPage(String key, List<VersionInfo> versions, Optional<Version> nextBefore) {
  public HistoryPage {
    versions = List.copyOf(versions);
  }
}
