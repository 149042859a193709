//! One format for every data file under `data/<game>/`, read by serde into the game's own
//! record types, so no engine hand-parses text.
//!
//! The format is line-based and diff-friendly:
//! - blank lines are skipped; `#` starts a comment (a whole line, or the rest of a line
//!   after a field);
//! - every other line is one record: fields separated by white space, in the order the
//!   record type declares them;
//! - a field is a bare word (`temple`, `A1`, `4`, `true`), `-` for "none" (an `Option`
//!   field), a `"quoted text"` that may hold spaces, or a JSON array or object
//!   (`[2,1,0,0,0,0]`), which may hold spaces too;
//! - a record type is a struct or tuple (fields in order), or an enum whose variant is named
//!   by the first word of the line (`temple 2 3` is `Record::Temple(2, 3)` under
//!   `#[serde(rename_all = "snake_case")]`).

use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, Visitor};

/// A data file that does not read as the records it should hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct DataError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

/// Reads every record of `text` (the contents of `file`, named in errors).
pub fn records<T: DeserializeOwned>(file: &str, text: &str) -> Result<Vec<T>, DataError> {
    let mut records = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let fail = |message: String| DataError {
            file: file.to_owned(),
            line: index + 1,
            message,
        };
        let fields = split_fields(line).map_err(fail)?;
        if fields.is_empty() {
            continue;
        }
        let mut record = RecordDeserializer {
            fields: &fields,
            next: 0,
        };
        let value = T::deserialize(&mut record).map_err(|error| fail(error.0))?;
        if record.next < fields.len() {
            return Err(fail(format!(
                "{} fields where the record has {}",
                fields.len(),
                record.next
            )));
        }
        records.push(value);
    }
    Ok(records)
}

/// Like [`records`], for data embedded in the binary, where a malformed file is a build
/// defect that every test would show at once.
pub fn embedded<T: DeserializeOwned>(file: &str, text: &str) -> Vec<T> {
    records(file, text).unwrap_or_else(|error| panic!("embedded data file is malformed: {error}"))
}

#[derive(Debug, Clone, PartialEq)]
struct Field {
    text: String,
    quoted: bool,
}

fn split_fields(line: &str) -> Result<Vec<Field>, String> {
    let mut fields = Vec::new();
    let mut chars = line.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        if c == '#' {
            break;
        }
        if c == '"' {
            chars.next();
            let mut text = String::new();
            loop {
                match chars.next() {
                    Some((_, '"')) => break,
                    Some((_, c)) => text.push(c),
                    None => return Err("a quoted field is not closed".into()),
                }
            }
            fields.push(Field { text, quoted: true });
            continue;
        }
        let mut depth = 0i32;
        let mut end = line.len();
        while let Some(&(at, c)) = chars.peek() {
            match c {
                '[' | '{' => depth += 1,
                ']' | '}' => depth -= 1,
                c if c.is_whitespace() && depth <= 0 => {
                    end = at;
                    break;
                }
                _ => {}
            }
            chars.next();
        }
        if depth != 0 {
            return Err(format!("unbalanced brackets in {:?}", &line[start..end]));
        }
        fields.push(Field {
            text: line[start..end].to_owned(),
            quoted: false,
        });
    }
    Ok(fields)
}

#[derive(Debug)]
struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(message: T) -> Self {
        Error(message.to_string())
    }
}

/// A whole line: a struct, tuple or enum record.
struct RecordDeserializer<'a> {
    fields: &'a [Field],
    next: usize,
}

impl<'de> de::SeqAccess<'de> for &mut RecordDeserializer<'_> {
    type Error = Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        let Some(field) = self.fields.get(self.next) else {
            return Ok(None);
        };
        self.next += 1;
        seed.deserialize(FieldDeserializer(field)).map(Some)
    }
}

impl<'de> de::EnumAccess<'de> for &mut RecordDeserializer<'_> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self), Error> {
        let Some(tag) = self.fields.get(self.next) else {
            return Err(Error("an empty record".into()));
        };
        self.next += 1;
        let tag: de::value::StrDeserializer<'_, Error> = tag.text.as_str().into_deserializer();
        let variant = seed.deserialize(tag)?;
        Ok((variant, self))
    }
}

impl<'de> de::VariantAccess<'de> for &mut RecordDeserializer<'_> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        Ok(())
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, Error> {
        if self.fields.len() - self.next == 1 {
            self.next += 1;
            return seed.deserialize(FieldDeserializer(&self.fields[self.next - 1]));
        }
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_seq(self)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_seq(self)
    }
}

impl<'de> de::Deserializer<'de> for &mut RecordDeserializer<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_seq(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_enum(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// One field of a line.
struct FieldDeserializer<'a>(&'a Field);

impl FieldDeserializer<'_> {
    fn text(&self) -> &str {
        &self.0.text
    }

    fn is_none(&self) -> bool {
        !self.0.quoted && self.0.text == "-"
    }

    fn is_json(&self) -> bool {
        !self.0.quoted && (self.0.text.starts_with('[') || self.0.text.starts_with('{'))
    }

    fn json(&self) -> Result<serde_json::Value, Error> {
        serde_json::from_str(self.text())
            .map_err(|error| Error(format!("{}: {error}", self.text())))
    }

    fn parse<T: std::str::FromStr>(&self, what: &str) -> Result<T, Error> {
        self.text()
            .parse()
            .map_err(|_| Error(format!("{:?} is not {what}", self.text())))
    }
}

macro_rules! parse_as {
    ($($method:ident $visit:ident $ty:ty, $what:literal;)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
                visitor.$visit(self.parse::<$ty>($what)?)
            }
        )*
    };
}

impl<'de> de::Deserializer<'de> for FieldDeserializer<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.is_none() {
            return visitor.visit_none();
        }
        if self.is_json() {
            return self
                .json()?
                .deserialize_any(visitor)
                .map_err(de::Error::custom);
        }
        if !self.0.quoted {
            if let Ok(number) = self.text().parse::<i64>() {
                return visitor.visit_i64(number);
            }
            if let Ok(number) = self.text().parse::<f64>() {
                return visitor.visit_f64(number);
            }
            if let Ok(flag) = self.text().parse::<bool>() {
                return visitor.visit_bool(flag);
            }
        }
        visitor.visit_str(self.text())
    }

    parse_as! {
        deserialize_bool visit_bool bool, "true or false";
        deserialize_i8 visit_i8 i8, "a small whole number";
        deserialize_i16 visit_i16 i16, "a whole number";
        deserialize_i32 visit_i32 i32, "a whole number";
        deserialize_i64 visit_i64 i64, "a whole number";
        deserialize_u8 visit_u8 u8, "a whole number from 0 to 255";
        deserialize_u16 visit_u16 u16, "a whole number from 0 to 65535";
        deserialize_u32 visit_u32 u32, "a non-negative whole number";
        deserialize_u64 visit_u64 u64, "a non-negative whole number";
        deserialize_f32 visit_f32 f32, "a number";
        deserialize_f64 visit_f64 f64, "a number";
        deserialize_char visit_char char, "a single character";
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.is_none() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_str(self.text())
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_str(self.text())
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_str(self.text())
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        if self.is_json() {
            return self
                .json()?
                .deserialize_enum(name, variants, visitor)
                .map_err(de::Error::custom);
        }
        let unit: de::value::StrDeserializer<'_, Error> = self.text().into_deserializer();
        unit.deserialize_enum(name, variants, visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.is_none() {
            visitor.visit_unit()
        } else {
            Err(Error(format!("expected -, found {:?}", self.text())))
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.json()?
            .deserialize_seq(visitor)
            .map_err(de::Error::custom)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.json()?
            .deserialize_map(visitor)
            .map_err(de::Error::custom)
    }

    serde::forward_to_deserialize_any! {
        i128 u128 bytes byte_buf unit_struct tuple tuple_struct struct
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Kind {
        Temple,
        Jungle,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Tile {
        id: String,
        stack: char,
        kind: Kind,
        value: Option<u8>,
        stones: [u8; 6],
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Record {
        Board(u8, u8),
        Temple { number: u8, count: u8 },
        Name(String),
        Start,
    }

    #[test]
    fn struct_records_read_fields_in_order() {
        let text = "# id stack kind value stones\n\nA1  A  temple 1 [2,1,0,0,0,0]\nB3 B jungle - [2, 1, 0, 0, 0, 0]  # spaces inside brackets\n";
        let tiles: Vec<Tile> = records("tiles.txt", text).unwrap();
        assert_eq!(
            tiles,
            [
                Tile {
                    id: "A1".into(),
                    stack: 'A',
                    kind: Kind::Temple,
                    value: Some(1),
                    stones: [2, 1, 0, 0, 0, 0]
                },
                Tile {
                    id: "B3".into(),
                    stack: 'B',
                    kind: Kind::Jungle,
                    value: None,
                    stones: [2, 1, 0, 0, 0, 0]
                },
            ]
        );
    }

    #[test]
    fn enum_records_are_named_by_their_first_word() {
        let text = "board 8 5\ntemple 2 3\nname \"Fish Market\"\nstart\n";
        let lines: Vec<Record> = records("board.txt", text).unwrap();
        assert_eq!(
            lines,
            [
                Record::Board(8, 5),
                Record::Temple {
                    number: 2,
                    count: 3
                },
                Record::Name("Fish Market".into()),
                Record::Start,
            ]
        );
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let error = records::<Record>("tokens.txt", "board 8 5\n\ntemple two 3\n").unwrap_err();
        assert_eq!(error.file, "tokens.txt");
        assert_eq!(error.line, 3);
        assert!(error.message.contains("\"two\""), "{}", error.message);
        let extra = records::<Record>("x", "board 8 5 7").unwrap_err();
        assert_eq!(extra.message, "4 fields where the record has 3");
        let missing = records::<Tile>("x", "A1 A temple 1").unwrap_err();
        assert!(
            missing.message.contains("invalid length"),
            "{}",
            missing.message
        );
        assert!(records::<Record>("x", "cave 1").is_err());
        assert!(records::<Tile>("x", "A1 A temple 1 [2,1").is_err());
        assert!(records::<Record>("x", "name \"open").is_err());
    }
}
