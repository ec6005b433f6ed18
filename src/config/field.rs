//! How a key's raw value is read from the YAML file: as serde reads its
//! type, except that a list also takes a single value.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, DeserializeOwned, Deserializer, SeqAccess, Visitor};

/// How a key's raw value is read from the file.
pub trait Field: Sized {
    fn de<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error>;
}

impl<T: DeserializeOwned> Field for Option<T> {
    fn de<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Option::<T>::deserialize(d)
    }
}

/// A list, or one value standing for a list of one (`listen_address:
/// ":10049"` is what people write for one address).
impl<T: DeserializeOwned> Field for Vec<T> {
    fn de<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(OneOrMany(PhantomData))
    }
}

struct OneOrMany<T>(PhantomData<T>);

impl<'de, T: DeserializeOwned> Visitor<'de> for OneOrMany<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list or a single value")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Vec<T>, E> {
        T::deserialize(de::value::StrDeserializer::<E>::new(v)).map(|one| vec![one])
    }

    fn visit_unit<E: de::Error>(self) -> Result<Vec<T>, E> {
        Ok(Vec::new())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut out = Vec::new();
        while let Some(item) = seq.next_element()? {
            out.push(item);
        }
        Ok(out)
    }
}
