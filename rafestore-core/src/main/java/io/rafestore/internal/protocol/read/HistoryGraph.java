package io.rafestore.internal.protocol.read;

import io.rafestore.Version;
import io.rafestore.internal.protocol.metadata.LogEntry;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * Tombolo's probability graph of accesses: a node is an accessed unit (a key and the byte range a
 * read used, not single blocks, so a large value read in ranges makes few nodes), an edge A to B
 * counts how often an access of B followed one of A, and its weight is that count over all the
 * accesses that followed A: the likelihood of B given A. Only accesses that are not part of a
 * sequential stream are recorded (the sequential prefetcher handles those), which keeps the graph
 * small and its predictions about the random part of a workload.
 *
 * <p>{@link #predict} traverses it by balanced expansion: a priority queue of candidate nodes
 * ordered by the product of the likelihoods along the path that reached them, always expanding the
 * most likely first (not breadth- nor depth-first), until the wanted number of nodes or the least
 * likelihood worth prefetching is reached.
 *
 * <p>Wrong predictions are remembered: a prediction that no access used within {@link #WINDOW}
 * later recorded accesses halves its edge's count ({@link #record}); so does a prefetch the cache
 * found wasted ({@link #lower}).
 *
 * <p>Bounded: at most {@code maxNodes} nodes (the least recently used dropped with its edges) and
 * {@link #MAX_EDGES} out-edges per node (the least counted dropped). Not thread-safe: the
 * prefetcher guards it.
 */
final class HistoryGraph {
  /** Out-edges kept per node. */
  static final int MAX_EDGES = 8;

  /** Recorded accesses within which a prediction must be used, or it counts as wrong. */
  static final int WINDOW = 16;

  /** Nodes expanded at most per prediction. */
  static final int MAX_EXPANSIONS = 64;

  /** An accessed unit: a key and a byte range [from, to). */
  record NodeId(String key, long from, long to) {}

  /** A predicted node, its likelihood, and the edge that led to it (from its source). */
  record Prediction(NodeId from, NodeId to, double probability, Version version, LogEntry entry) {}

  private static final class Node {
    final NodeId id;
    Version version;
    LogEntry entry;
    long outTotal;
    final Map<NodeId, long[]> out = new HashMap<>(4);

    Node(NodeId id) {
      this.id = id;
    }
  }

  /** A prediction waiting to be used. */
  private record Pending(NodeId from, NodeId to, long at) {}

  private final int maxNodes;
  private final LinkedHashMap<NodeId, Node> nodes;
  private final Deque<Pending> pending = new ArrayDeque<>();
  private NodeId last;
  private long accesses;
  private long edges;
  private long keyChars;

  HistoryGraph(int maxNodes) {
    this.maxNodes = maxNodes;
    this.nodes =
        new LinkedHashMap<>(16, 0.75f, true) {
          private static final long serialVersionUID = 1L;

          @Override
          protected boolean removeEldestEntry(Map.Entry<NodeId, Node> eldest) {
            if (size() <= HistoryGraph.this.maxNodes) {
              return false;
            }
            edges -= eldest.getValue().out.size();
            keyChars -= eldest.getKey().key().length();
            return true;
          }
        };
  }

  /**
   * Records an access of {@code id} (of {@code version}, whose signed entry is {@code entry}) that
   * is not part of a sequential stream: the edge from the previous such access grows, predictions
   * it fulfils are settled, and predictions older than {@link #WINDOW} accesses are wrong.
   */
  void record(NodeId id, Version version, LogEntry entry) {
    accesses++;
    Node n = nodes.get(id);
    if (n == null) {
      n = new Node(id);
      keyChars += id.key().length();
      nodes.put(id, n);
    }
    n.version = version;
    n.entry = entry;
    Node prev = last == null ? null : nodes.get(last);
    if (prev != null && !last.equals(id)) {
      long[] c = prev.out.get(id);
      if (c == null) {
        if (prev.out.size() >= MAX_EDGES) {
          dropWeakest(prev);
        }
        c = new long[1];
        prev.out.put(id, c);
        edges++;
      }
      c[0]++;
      prev.outTotal++;
    }
    last = id;
    for (Iterator<Pending> it = pending.iterator(); it.hasNext(); ) {
      Pending p = it.next();
      if (p.to().equals(id)) {
        it.remove();
      } else if (accesses - p.at() > WINDOW) {
        it.remove();
        lower(p.from(), p.to());
      }
    }
  }

  private void dropWeakest(Node n) {
    NodeId weakest = null;
    long least = Long.MAX_VALUE;
    for (Map.Entry<NodeId, long[]> e : n.out.entrySet()) {
      if (e.getValue()[0] < least) {
        least = e.getValue()[0];
        weakest = e.getKey();
      }
    }
    if (weakest != null) {
      n.out.remove(weakest);
      n.outTotal -= least;
      edges--;
    }
  }

  /**
   * Halves the count of the edge {@code from} to {@code to} (a wrong prediction), removing it when
   * it reaches zero.
   */
  void lower(NodeId from, NodeId to) {
    Node n = nodes.get(from);
    if (n == null) {
      return;
    }
    long[] c = n.out.get(to);
    if (c == null) {
      return;
    }
    long cut = c[0] - c[0] / 2;
    c[0] -= cut;
    n.outTotal -= cut;
    if (c[0] == 0) {
      n.out.remove(to);
      edges--;
    }
  }

  /** The likelihood of the edge {@code from} to {@code to} (0 if none). */
  double probability(NodeId from, NodeId to) {
    Node n = nodes.get(from);
    if (n == null || n.outTotal == 0) {
      return 0;
    }
    long[] c = n.out.get(to);
    return c == null ? 0 : (double) c[0] / n.outTotal;
  }

  /**
   * Up to {@code max} nodes most likely to be accessed after {@code from}, most likely first, each
   * at least {@code minProbability} likely, by balanced expansion; each is remembered as pending
   * until an access uses it or {@link #WINDOW} accesses pass.
   */
  List<Prediction> predict(NodeId from, int max, double minProbability) {
    List<Prediction> out = new ArrayList<>();
    if (max <= 0) {
      return out;
    }
    record Candidate(NodeId via, NodeId node, double p) {}
    PriorityQueue<Candidate> queue = new PriorityQueue<>((a, b) -> Double.compare(b.p(), a.p()));
    Set<NodeId> seen = new HashSet<>();
    seen.add(from);
    push(queue, from, 1.0, minProbability, Candidate::new);
    int expansions = 0;
    while (!queue.isEmpty() && out.size() < max && expansions++ < MAX_EXPANSIONS) {
      Candidate c = queue.poll();
      if (!seen.add(c.node())) {
        continue;
      }
      Node n = nodes.get(c.node());
      if (n == null) {
        continue;
      }
      out.add(new Prediction(c.via(), c.node(), c.p(), n.version, n.entry));
      pending.add(new Pending(c.via(), c.node(), accesses));
      push(queue, c.node(), c.p(), minProbability, Candidate::new);
    }
    while (pending.size() > 4 * WINDOW * Math.max(1, max)) {
      pending.poll();
    }
    return out;
  }

  private interface Make<C> {
    C make(NodeId via, NodeId node, double p);
  }

  private <C> void push(
      PriorityQueue<C> queue, NodeId from, double p, double minProbability, Make<C> make) {
    Node n = nodes.get(from);
    if (n == null || n.outTotal == 0) {
      return;
    }
    for (Map.Entry<NodeId, long[]> e : n.out.entrySet()) {
      double q = p * e.getValue()[0] / n.outTotal;
      if (q >= minProbability) {
        queue.add(make.make(from, e.getKey(), q));
      }
    }
  }

  int nodes() {
    return nodes.size();
  }

  long edges() {
    return edges;
  }

  /**
   * An estimate of the graph's memory in bytes: per node its map entry, record, key string and edge
   * map, per edge its map entry and counter (64-bit JVM with compressed references).
   */
  long bytes() {
    return 200L * nodes.size() + 2 * keyChars + 80 * edges;
  }
}
