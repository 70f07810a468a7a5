//! `sdsi.Evolution`: the self-evolution engine, with a Python embedder.

use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use sdsi::evolution::{
    Branching, Embedder, Evolution, EvolutionConfig, EvolutionEngine, EvolutionState,
    HashingEmbedder, Lending, PoolConfig, RuleInducer,
};

use crate::convert::{serialize_to_py, value_of};
use crate::errors::{Kind, input_error};
use crate::overlay::overlay;
use crate::refusal::raise;
use crate::store::PyStore;
use crate::time::instant;

/// The largest embedder dimension taken (the largest embedding models have
/// a few thousand); pools allocate vectors of it.
const MAX_DIMENSION: usize = 65_536;

/// An embedder that calls a Python callable: a list of texts in, one vector
/// per text out (lists of floats, a NumPy array, anything iterable).
///
/// The engine's trait cannot fail, so a callable that raises, or returns the
/// wrong number or length of vectors, gives zero vectors (which the pools
/// skip, as "nothing to embed") and its error is kept in `calls`, to be
/// raised by `observe` once the engine returns.
///
/// `observe` runs the engine twice over one message so that the callable
/// runs while the store is not borrowed (another thread may use the store
/// meanwhile): first on its own, recording each batch's vectors, then with
/// the store, replaying them (`Calls`).
struct PyEmbedder {
    callable: Py<PyAny>,
    dimension: usize,
    threshold: f32,
    calls: Arc<Mutex<Calls>>,
}

/// What the callable gave one `observe` call, on the thread making it.
#[derive(Default)]
struct Calls {
    /// The vectors of each batch embedded while recording.
    recorded: Vec<(Vec<String>, Vec<Vec<f32>>)>,
    /// Whether batches are answered from `recorded` instead of the callable.
    replaying: bool,
    /// The first error the callable raised.
    error: Option<PyErr>,
}

impl PyEmbedder {
    fn call(&self, texts: &[&str]) -> PyResult<Vec<Vec<f32>>> {
        Python::attach(|py| {
            let batch = PyList::new(py, texts.iter().map(|t| PyString::new(py, t)))?;
            let result = self.callable.bind(py).call1((batch,))?;
            let mut vectors = Vec::with_capacity(texts.len());
            for row in result.try_iter()? {
                let row = row?;
                let mut vector = Vec::with_capacity(self.dimension);
                for x in row.try_iter()? {
                    vector.push(x?.extract::<f32>()?);
                }
                if vector.len() != self.dimension {
                    return Err(input_error(format!(
                        "the embedder returned a vector of {} numbers; dimension is {}",
                        vector.len(),
                        self.dimension
                    )));
                }
                vectors.push(vector);
            }
            if vectors.len() != texts.len() {
                return Err(input_error(format!(
                    "the embedder returned {} vectors for {} texts",
                    vectors.len(),
                    texts.len()
                )));
            }
            Ok(vectors)
        })
    }

    /// The recorded vectors of `texts`, when replaying and they were seen.
    fn replayed(&self, texts: &[&str]) -> Option<Vec<Vec<f32>>> {
        let calls = self.calls.lock().ok()?;
        if !calls.replaying {
            return None;
        }
        calls
            .recorded
            .iter()
            .find(|(batch, _)| batch.iter().map(String::as_str).eq(texts.iter().copied()))
            .map(|(_, vectors)| vectors.clone())
    }

    /// The callable's vectors for `texts` (zeros when it failed), recorded.
    fn embedded(&self, texts: &[&str]) -> Vec<Vec<f32>> {
        if let Some(vectors) = self.replayed(texts) {
            return vectors;
        }
        let (vectors, error) = match self.call(texts) {
            Ok(vectors) => (vectors, None),
            Err(error) => (vec![vec![0.0; self.dimension]; texts.len()], Some(error)),
        };
        if let Ok(mut calls) = self.calls.lock() {
            if let Some(error) = error {
                calls.error.get_or_insert(error);
            }
            let batch = texts.iter().map(|t| (*t).to_owned()).collect();
            calls.recorded.push((batch, vectors.clone()));
        }
        vectors
    }
}

impl Embedder for PyEmbedder {
    fn dimension(&self) -> usize {
        self.dimension
    }

    fn recommended_threshold(&self) -> f32 {
        self.threshold
    }

    fn embed_into(&self, text: &str, out: &mut [f32]) {
        out.fill(0.0);
        if let Some(vector) = self.embedded(&[text]).first() {
            for (slot, x) in out.iter_mut().zip(vector) {
                *slot = *x;
            }
        }
    }

    fn embed_batch(&self, texts: &[&str]) -> Vec<Vec<f32>> {
        self.embedded(texts)
    }
}

/// The self-evolution engine (draft §6): feed it every received message;
/// it records the lifecycle's metrics in the store, clusters the ``other``
/// fragments (redacted first) into fine clusters and needs, and when a
/// need's dual gate opens proposes a patch to the store.
///
/// ``Evolution(embedder=None, *, dimension=None, threshold=None,
/// need_threshold=None, need_contrast=None, lending=None, branching="global",
/// patch_lifetime=timedelta(days=30), max_client_pools=10000, pool=None)``.
/// ``embedder`` is a callable taking a list of texts and returning one
/// vector per text (``dimension`` numbers each; ``threshold`` is the mean
/// cosine similarity at which a text joins a fine cluster for it), e.g.
/// ``lambda texts: model.encode(texts)`` for a sentence-transformers model;
/// without one the crate's hashing embedder is used. ``need_threshold`` is
/// the looser similarity at which fine clusters are one need (default: the
/// embedder's, or 0.82 × ``threshold`` for a callable); given alone it is
/// fixed. ``need_contrast`` makes it adapt to the traffic instead: that many
/// times the pool's background similarity (the hashing embedder does so by
/// default; a callable's threshold is fixed unless one is given).
/// ``lending`` (``"silence"`` or ``"book"``) says what becomes of the heat a
/// need lent to a neighbour proposed with its help: silenced for good, or
/// booked so that only what it gains later counts (default: the
/// embedder's; ``"silence"`` for the hashing embedder and a callable).
/// ``pool`` overrides the Differential Semantic Pool's gate
/// settings (``heat_threshold``, ``min_clients``, ``min_occurrences``,
/// ``half_life_secs``, ``window_secs``, ...).
#[pyclass(module = "sdsi", name = "Evolution")]
pub struct PyEvolution {
    engine: Evolution<Box<dyn Embedder>, RuleInducer>,
    /// What a Python embedder gave the current `observe` call; `None` for
    /// the hashing embedder, which runs no Python code.
    embedder_calls: Option<Arc<Mutex<Calls>>>,
}

#[pymethods]
impl PyEvolution {
    #[new]
    #[pyo3(signature = (embedder = None, *, dimension = None, threshold = None, need_threshold = None, need_contrast = None, lending = None, branching = "global", patch_lifetime = None, max_client_pools = None, pool = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        embedder: Option<Py<PyAny>>,
        dimension: Option<usize>,
        threshold: Option<f32>,
        need_threshold: Option<f32>,
        need_contrast: Option<f32>,
        lending: Option<&str>,
        branching: &str,
        patch_lifetime: Option<time::Duration>,
        max_client_pools: Option<usize>,
        pool: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let calls = Arc::new(Mutex::new(Calls::default()));
        // The hashing embedder's threshold is the config's to override; a
        // callable's comes with it.
        let hashing = embedder.is_none();
        let chosen: Box<dyn Embedder> = match embedder {
            None => Box::new(HashingEmbedder::default()),
            Some(callable) => {
                let (Some(dimension), Some(threshold)) = (dimension, threshold) else {
                    return Err(input_error(
                        "a callable embedder needs dimension= and threshold=",
                    ));
                };
                let usable =
                    (1..=MAX_DIMENSION).contains(&dimension) && threshold > 0.0 && threshold <= 1.0;
                if !usable {
                    return Err(input_error(format!(
                        "dimension must be 1 to {MAX_DIMENSION} and threshold in (0, 1]"
                    )));
                }
                Box::new(PyEmbedder {
                    callable,
                    dimension,
                    threshold,
                    calls: Arc::clone(&calls),
                })
            }
        };
        let mut config = EvolutionConfig::default();
        config.branching = match branching {
            "global" => Branching::Global,
            "global_and_per_client" => Branching::GlobalAndPerClient,
            other => {
                return Err(input_error(format!(
                    "branching must be \"global\" or \"global_and_per_client\", not {other:?}"
                )));
            }
        };
        if let Some(lifetime) = patch_lifetime {
            config = config.patch_lifetime(lifetime);
        }
        if let Some(max) = max_client_pools {
            config = config.max_client_pools(max);
        }
        let pool_default = PoolConfig::new(chosen.dimension(), chosen.recommended_threshold());
        let pool = overlay(&pool_default, pool, "pool")?;
        if pool.dimension != pool_default.dimension {
            return Err(input_error(
                "the pool's dimension is the embedder's: give dimension= to Evolution",
            ));
        }
        config = config.pool(pool);
        if let Some(threshold) = threshold.filter(|_| hashing) {
            config = config.threshold(threshold);
        }
        if let Some(threshold) = need_threshold {
            if !(-1.0..=1.0).contains(&threshold) {
                return Err(input_error("need_threshold must be in -1..=1"));
            }
            config = config.need_threshold(threshold);
        }
        if let Some(contrast) = need_contrast {
            if !(contrast.is_finite() && contrast > 0.0) {
                return Err(input_error("need_contrast must be a positive number"));
            }
            config = config.need_contrast(contrast);
        }
        match lending {
            None => {}
            Some("silence") => config = config.lending(Lending::Silence),
            Some("book") => config = config.lending(Lending::Book),
            Some(other) => {
                return Err(input_error(format!(
                    "lending must be \"silence\" or \"book\", not {other:?}"
                )));
            }
        }
        Ok(PyEvolution {
            engine: Evolution::new(chosen, RuleInducer, config),
            embedder_calls: (!hashing).then_some(calls),
        })
    }

    /// Takes one received message ``{"schema_id", "payload"}`` from
    /// ``client`` at ``now`` (valid or not) and returns what the engine did,
    /// as event dicts (``{"event": "proposed", "patch": {...}, ...}``,
    /// ``"triggered"``, ``"deferred"``, ``"skipped"``, ``"covered"`` (the
    /// need is a key the schema already describes),
    /// ``"held"``: waiting for an operator, see ``SchemaStore.pending``).
    /// A Python embedder is called before the store is borrowed, so other
    /// threads may use the store meanwhile. An error the embedder raised is
    /// raised here, after the engine has finished with the message; the
    /// events of that call are on the exception's ``events`` attribute.
    fn observe<'py>(
        &mut self,
        py: Python<'py>,
        store: &Bound<'py, PyStore>,
        message: &Bound<'py, PyAny>,
        client: &str,
        now: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let message = value_of(message)?;
        let now = instant(now)?;
        let reset = |calls: &Mutex<Calls>, replaying: bool| {
            calls.lock().ok().map(|mut calls| {
                if !replaying {
                    calls.recorded.clear();
                }
                calls.replaying = replaying;
                calls.error.take()
            })
        };
        if let Some(calls) = &self.embedder_calls {
            // Nothing left from an earlier call that ended early.
            reset(calls, false);
            // The engine's pure half embeds the message's fragments (the
            // store untouched); the pass with the store replays them.
            let _ = self.engine.observation(&message, client, now);
            let error = reset(calls, true).flatten();
            if let Ok(mut calls) = calls.lock() {
                calls.error = error;
            }
        }
        let mut store = store.try_borrow_mut()?;
        let events = self.engine.observe(&mut store.inner, &message, client, now);
        drop(store);
        let error = self
            .embedder_calls
            .as_ref()
            .and_then(|calls| reset(calls, false).flatten());
        let events = serialize_to_py(py, &events)?;
        if let Some(error) = error {
            // The engine went on without the fragments; what it did with the
            // rest of the message (a proposed patch, say) must not be lost.
            error.value(py).setattr("events", events)?;
            return Err(error);
        }
        Ok(events)
    }

    /// Every pool's state as JSON text (``restore`` puts it back); fragments
    /// in it are redacted, as in the pools.
    fn state(&self) -> PyResult<String> {
        serde_json::to_string(&self.engine.state()).map_err(|e| input_error(e.to_string()))
    }

    /// Puts back a state saved by ``state``, under this engine's gate, heat,
    /// window and cap settings (they may differ from those it was saved
    /// with); raises ``sdsi.StateError``, naming the setting, if it was made
    /// with another embedder dimension, similarity threshold, need contrast
    /// or half-life.
    fn restore(&mut self, state: &str) -> PyResult<()> {
        let state: EvolutionState = serde_json::from_str(state)
            .map_err(|e| raise(Kind::State, format!("evolution state: {e}"), &[], &[]))?;
        self.engine
            .restore(state)
            .map_err(|e| raise(Kind::State, e.to_string(), &[], &[]))
    }

    /// The pools: ``[{"pool": {"scenario", "client"?}, "clusters": n, "needs": n}]``.
    fn pools<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for (key, pool) in self.engine.pools() {
            let item = pyo3::types::PyDict::new(py);
            item.set_item("pool", serialize_to_py(py, key)?)?;
            item.set_item("clusters", pool.len())?;
            item.set_item("needs", pool.need_count())?;
            list.append(item)?;
        }
        Ok(list)
    }

    fn __repr__(&self) -> String {
        format!("Evolution(pools={})", self.engine.pools().count())
    }
}
