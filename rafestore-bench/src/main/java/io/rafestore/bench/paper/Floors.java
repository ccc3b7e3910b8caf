package io.rafestore.bench.paper;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Physical lower bounds of an operation's latency on a profile, in paper milliseconds (time scale
 * 1). They ignore CPU time and the protocol's sequencing, so every mode's measured latency should
 * be above them; the ratio says how far a protocol is from what the network allows.
 *
 * <ul>
 *   <li>write: the larger of one RTT to the (n-f)-th fastest metadata cloud (a quorum must hear of
 *       the version) and the time to push f+1 full copies: to each of the first f+1 data clouds one
 *       RTT plus the value through the slower of the client's uplink and that cloud's link, and the
 *       f+1 copies together through the uplink. It leaves out writeM's round trip, so a protocol
 *       that writes metadata after its data cannot reach it.
 *   <li>read: the larger of one RTT to the (n-f)-th fastest metadata cloud and fetching the value
 *       from the nearest data cloud (one RTT plus the value through the slower of the client's
 *       downlink and that cloud's link). A read must learn the newest version from a quorum and
 *       must receive the bytes; it need not do both one after the other, so this stays a floor. A
 *       value stored in parts (RafeStore's modes, above the part size) can be read from its f+1
 *       holders at once, so its floor is the lower of that and the bytes through the holders' links
 *       together (and the client's downlink), starting one RTT of the nearest holder after the
 *       request: the floor of the layout in use (issue 21).
 * </ul>
 *
 * <p>Both assume full copies. DepSky-CA moves fragments of half a value (f = 1) and can end below
 * these floors for large values; its ratio says how it compares with replication, nothing more. A
 * floor for erasure-coded protocols is not built yet.
 */
final class Floors {
  private Floors() {}

  /** The RTT of the (n-f)-th fastest cloud of {@code arrangement}. */
  static double quorumRttMs(WanProfile profile, WanProfile.Arrangement arrangement, int f) {
    List<Double> rtts = new ArrayList<>();
    for (String id : arrangement.order()) {
      rtts.add(profile.clouds().get(id).rttMillis());
    }
    Collections.sort(rtts);
    return rtts.get(rtts.size() - f - 1);
  }

  static double writeMs(
      WanProfile profile, WanProfile.Arrangement arrangement, int f, long sizeBytes) {
    double bits = sizeBytes * 8.0;
    double data = 0;
    double minRtt = Double.POSITIVE_INFINITY;
    for (int i = 0; i < f + 1 && i < arrangement.data().size(); i++) {
      WanProfile.CloudLink link = profile.clouds().get(arrangement.data().get(i));
      double bps = Math.min(link.bps(), profile.uplinkBps());
      data = Math.max(data, link.rttMillis() + bits / bps * 1000);
      minRtt = Math.min(minRtt, link.rttMillis());
    }
    double throughUplink = minRtt + (f + 1) * bits / profile.uplinkBps() * 1000;
    return Math.max(quorumRttMs(profile, arrangement, f), Math.max(data, throughUplink));
  }

  /** RafeStore.Builder's default part size: values above it are stored in parts. */
  static final long DEFAULT_PART_SIZE = 8L * 1024 * 1024;

  /**
   * The read floor of a value stored in parts ({@code parted}) or whole: for parts, the lower of
   * the whole-copy floor and the parts fetched from the first f+1 data clouds at once.
   */
  static double readMs(
      WanProfile profile,
      WanProfile.Arrangement arrangement,
      int f,
      long sizeBytes,
      boolean parted) {
    double whole = readMs(profile, arrangement, f, sizeBytes);
    if (!parted) {
      return whole;
    }
    double bps = 0;
    double nearest = Double.POSITIVE_INFINITY;
    for (int i = 0; i < f + 1 && i < arrangement.data().size(); i++) {
      WanProfile.CloudLink link = profile.clouds().get(arrangement.data().get(i));
      bps += Math.min(link.bps(), profile.downlinkBps());
      nearest = Math.min(nearest, link.rttMillis());
    }
    double together = nearest + sizeBytes * 8.0 / Math.min(bps, profile.downlinkBps()) * 1000;
    return Math.min(whole, Math.max(quorumRttMs(profile, arrangement, f), together));
  }

  static double readMs(
      WanProfile profile, WanProfile.Arrangement arrangement, int f, long sizeBytes) {
    double bits = sizeBytes * 8.0;
    double fetch = Double.POSITIVE_INFINITY;
    List<String> holders = new ArrayList<>(arrangement.data());
    holders.addAll(arrangement.extra());
    for (String id : holders) {
      WanProfile.CloudLink link = profile.clouds().get(id);
      double bps = Math.min(link.bps(), profile.downlinkBps());
      fetch = Math.min(fetch, link.rttMillis() + bits / bps * 1000);
    }
    return Math.max(quorumRttMs(profile, arrangement, f), fetch);
  }
}
