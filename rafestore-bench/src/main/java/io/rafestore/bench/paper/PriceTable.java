package io.rafestore.bench.paper;

import io.rafestore.CloudStats;
import java.io.IOException;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Storage prices per cloud id, read from a properties file whose numbers are assumptions (see the
 * file's header and {@link #source()}). Immutable.
 *
 * @param source where the prices come from, as stated in the file
 * @param prices cloud id to its prices
 */
record PriceTable(String source, Map<String, Prices> prices) {

  /** The built-in table. */
  static final String DEFAULT = "prices/list-prices.properties";

  private static final double GB = 1e9;

  PriceTable {
    prices = Map.copyOf(prices);
  }

  /** One provider's prices in USD. */
  record Prices(
      String provider,
      double putPer1000,
      double getPer1000,
      double otherPer1000,
      double egressPerGB,
      double ingressPerGB,
      double storagePerGBMonth) {

    /**
     * These prices as the client's cost model takes them ({@code Builder.pricing}): lists at the
     * table's price of other requests; ingress is free in every provider's table the client knows.
     */
    io.rafestore.Pricing pricing() {
      return new io.rafestore.Pricing(
          putPer1000, getPer1000, otherPer1000, egressPerGB, storagePerGBMonth);
    }
  }

  /** Loads prices for {@code cloudIds}; each must have every price key. */
  static PriceTable load(String location, Collection<String> cloudIds) throws IOException {
    Settings s = Settings.load(location);
    Map<String, Prices> out = new LinkedHashMap<>();
    for (String id : cloudIds) {
      out.put(
          id,
          new Prices(
              s.string(id + ".provider"),
              s.number(id + ".putPer1000", 0, 1e6),
              s.number(id + ".getPer1000", 0, 1e6),
              s.number(id + ".otherPer1000", 0, 1e6),
              s.number(id + ".egressPerGB", 0, 1e6),
              s.number(id + ".ingressPerGB", 0, 1e6),
              s.number(id + ".storagePerGBMonth", 0, 1e6)));
    }
    return new PriceTable(s.string("source"), out);
  }

  /**
   * USD for the requests and transfer in {@code delta} (what {@code ops} operations cost), scaled
   * to 10,000 operations. When {@code keepStored} the bytes uploaded are also charged one month of
   * storage: an upper bound, since metadata objects are overwritten, not added.
   */
  double costPer10k(Map<String, CloudStats> delta, int ops, boolean keepStored) {
    double usd = 0;
    for (CloudStats c : delta.values()) {
      Prices p = prices.get(c.cloudId());
      if (p == null) {
        throw new IllegalArgumentException("price table has no cloud " + c.cloudId());
      }
      usd += c.puts() * p.putPer1000() / 1000;
      usd += c.gets() * p.getPer1000() / 1000;
      usd += (c.deletes() + c.lists()) * p.otherPer1000() / 1000;
      usd += c.bytesDown() / GB * p.egressPerGB();
      usd += c.bytesUp() / GB * p.ingressPerGB();
      if (keepStored) {
        usd += c.bytesUp() / GB * p.storagePerGBMonth();
      }
    }
    return ops == 0 ? 0 : usd * 10_000 / ops;
  }
}
