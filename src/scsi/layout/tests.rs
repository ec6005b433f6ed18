use super::*;
use std::mem::offset_of;

/// Every field at the byte offset its spec table gives.
#[test]
fn fields_sit_at_their_spec_offsets() {
    assert_eq!(offset_of!(InquiryData, additional_length), 4);
    assert_eq!(offset_of!(InquiryData, vendor), 8);
    assert_eq!(offset_of!(InquiryData, product), 16);
    assert_eq!(offset_of!(InquiryData, revision), 32);
    assert_eq!(offset_of!(VpdHeader, page_code), 1);
    assert_eq!(offset_of!(VpdHeader, page_length), 2);
    assert_eq!(offset_of!(DesignatorHeader, designator_length), 3);
    assert_eq!(
        offset_of!(BlockDeviceCharacteristics, medium_rotation_rate),
        4
    );
    assert_eq!(
        offset_of!(BlockDeviceCharacteristics, nominal_form_factor),
        7
    );
    assert_eq!(
        offset_of!(BlockDeviceCharacteristics, depopulation_time),
        12
    );
    assert_eq!(offset_of!(ReadCapacity16Data, block_length), 8);
    assert_eq!(offset_of!(ReadCapacity16Data, lowest_aligned_lba), 14);
    assert_eq!(offset_of!(DefectListHeader, defect_list_length), 2);
}

/// Bytes written at the spec offsets by hand read back through the
/// structs, big-endian.
#[test]
fn hand_written_bytes_read_through_the_layouts() {
    let mut rc = [0u8; 32];
    rc[0..8].copy_from_slice(&[0, 0, 0, 1, 0, 0, 0, 2]);
    rc[8..12].copy_from_slice(&[0, 0, 0x10, 0]);
    let d = ReadCapacity16Data::read_from_bytes(&rc).unwrap();
    assert_eq!(
        (d.returned_lba.get(), d.block_length.get()),
        ((1 << 32) + 2, 4096)
    );
    assert_eq!(ReadCapacity16Data::new((1 << 32) + 2, 4096).as_bytes(), rc);
    // READ CAPACITY's 12 bytes the decoder insists on, padded.
    let short: ReadCapacity16Data = read_padded(&rc[..12]);
    assert_eq!(short.block_length.get(), 4096);

    let d = DesignatorHeader::read_from_bytes(&[0x61, 0x93, 0x00, 0x08]).unwrap();
    assert_eq!(
        (
            d.protocol(),
            d.code_set(),
            d.piv(),
            d.association(),
            d.designator_type()
        ),
        (6, 1, true, 1, 3)
    );
    assert_eq!(
        DesignatorHeader::new(6, 1, true, 1, 3, 8).as_bytes(),
        [0x61, 0x93, 0, 8]
    );

    let h = DefectListHeader::grown(FORMAT_PHYSICAL_SECTOR, 400);
    assert_eq!(h.as_bytes(), [0x00, 0x0D, 0x01, 0x90]);

    let b1 = BlockDeviceCharacteristics::new();
    assert_eq!(&b1.as_bytes()[..4], [0x00, 0xB1, 0x00, 0x3C]);
    assert_eq!(ascii::<6>("ab"), *b"ab    ");
}

#[test]
fn vpd_builder_and_designator_walk() {
    let page = VpdPageBuilder::new(0x83)
        .designator(DesignatorHeader::new(0, 2, false, 0, 1, 0), b"ABCD")
        .designator(DesignatorHeader::new(6, 1, true, 1, 3, 0), &[0x50; 8])
        .build();
    assert_eq!(&page[..8], [0x00, 0x83, 0x00, 0x14, 0x02, 0x01, 0x00, 0x04]);
    let found: Vec<_> = designators(&page[4..])
        .map(|(h, d)| (h.designator_type(), d.len()))
        .collect();
    assert_eq!(found, [(1, 4), (3, 8)]);
    // A descriptor longer than what is left ends the walk.
    assert_eq!(designators(&page[4..page.len() - 1]).count(), 1);
}

mod roundtrip {
    use super::super::*;
    use proptest::prelude::*;

    proptest! {
        /// What the builder appends is what the walk reads back,
        /// descriptor by descriptor.
        #[test]
        fn built_designators_walk_back(
            ds in proptest::collection::vec(
                (any::<u8>(), any::<u8>(), proptest::collection::vec(any::<u8>(), 0..40)),
                0..8,
            ),
        ) {
            let page = ds
                .iter()
                .fold(VpdPageBuilder::new(0x83), |b, (p, t, d)| {
                    b.designator(DesignatorHeader::new(*p >> 4, *p, *t & 0x80 != 0, *t >> 4, *t, 0), d)
                })
                .build();
            let walked: Vec<(u8, u8, Vec<u8>)> = designators(&page[4..])
                .map(|(h, d)| (h.protocol_code_set, h.piv_association_type, d.to_vec()))
                .collect();
            let want: Vec<(u8, u8, Vec<u8>)> = ds
                .iter()
                .map(|(p, t, d)| (*p, (*t & 0x80) | ((*t >> 4) & 0x03) << 4 | (*t & 0x0F), d.clone()))
                .collect();
            prop_assert_eq!(walked, want);
        }
    }
}
