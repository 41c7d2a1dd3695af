//! [`Memo`]: what each writer derives from a shared value alone, kept with the value, one slot
//! per type, so the spec stays writer-neutral while a population's bodies still share the work.

use std::any::{Any, TypeId};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// A slot's cell, type-erased: an `OnceLock<Arc<T>>` behind an `Arc`.
type Slot = Arc<dyn Any + Send + Sync>;

/// Values derived from the value that owns the memo, one per type: a G4MF writer keeps its
/// fanned simplexes in one slot, a glTF writer its split vertices in another. Each slot is
/// filled once (a second thread asking for the same type waits for the first), and the memo's
/// own lock is never held while a value is made, so making one may consult another slot.
#[derive(Default)]
pub struct Memo(Mutex<Vec<(TypeId, Slot)>>);

impl Memo {
    /// The value of type `T`, made by `make` on first use.
    pub fn get_or_init<T: Any + Send + Sync>(&self, make: impl FnOnce() -> T) -> Arc<T> {
        let cell = self.cell::<T>();
        cell.get_or_init(|| Arc::new(make())).clone()
    }

    /// The cell of type `T`, added when missing.
    fn cell<T: Any + Send + Sync>(&self) -> Arc<OnceLock<Arc<T>>> {
        let mut slots = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let id = TypeId::of::<T>();
        if let Some((_, slot)) = slots.iter().find(|(t, _)| *t == id) {
            if let Ok(cell) = slot.clone().downcast::<OnceLock<Arc<T>>>() {
                return cell;
            }
        }
        let cell: Arc<OnceLock<Arc<T>>> = Arc::new(OnceLock::new());
        slots.retain(|(t, _)| *t != id);
        slots.push((id, cell.clone()));
        cell
    }
}

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let slots = self.0.lock().map_or(0, |s| s.len());
        f.debug_struct("Memo").field("slots", &slots).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_type_is_made_once_and_types_do_not_share_a_slot() {
        let memo = Memo::default();
        let mut made = 0;
        let a = memo.get_or_init(|| {
            made += 1;
            7u32
        });
        let b = memo.get_or_init(|| {
            made += 1;
            8u32
        });
        assert_eq!((*a, *b, made), (7, 7, 1));
        let text = memo.get_or_init(|| String::from("other"));
        assert_eq!(text.as_str(), "other");
        // Making one value may consult another slot: the memo's lock is not held meanwhile.
        let nested = memo.get_or_init(|| *memo.get_or_init(|| 1u32) as u64 + 1);
        assert_eq!(*nested, 8);
    }
}
