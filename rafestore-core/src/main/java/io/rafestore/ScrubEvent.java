package io.rafestore;

import java.util.Objects;

/**
 * Something the background {@link Scrubber} found or did, as told to {@link
 * RafeStoreListener#scrubEvent}. Immutable.
 *
 * @param kind what happened
 * @param key the key it concerns (empty for an event of the whole walk)
 * @param cloudId the cloud it concerns (empty if none or several)
 * @param detail a human-readable description
 */
public record ScrubEvent(Kind kind, String key, String cloudId, String detail) {
  /** What a scrub event reports. */
  public enum Kind {
    /** Verify found a problem ({@link VerifyReport.Finding}); {@code detail} is the finding. */
    DAMAGE_FOUND,
    /** Repair put back a copy (metadata, an object, a part, a fragment). */
    REPAIRED,
    /** Repair could not put something back; {@code detail} says why. */
    REPAIR_FAILED,
    /** A retained version is one fault from loss ({@link VerifyReport.Margin}). */
    ONE_FAULT_FROM_LOSS,
    /** A retained version is lost: what it needs is missing everywhere. */
    LOST,
    /** The state file could not be used; the scrub started again from the first key. */
    STATE_RESET,
    /** A pass over every key ended. */
    PASS_COMPLETED
  }

  public ScrubEvent {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(cloudId, "cloudId");
    Objects.requireNonNull(detail, "detail");
  }

  @Override
  public String toString() {
    return kind
        + (key.isEmpty() ? "" : " '" + key + "'")
        + (cloudId.isEmpty() ? "" : " " + cloudId)
        + ": "
        + detail;
  }
}
