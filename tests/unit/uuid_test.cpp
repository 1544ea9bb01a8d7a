// Job ids: new ones are lowercase hyphenated v4 UUIDs; a decoded id is accepted only in the
// hyphenated form, in any case, and comes out lowercase.
#include "uuid.hpp"

#include <gtest/gtest.h>

using queuey::new_uuid_v4;
using queuey::normalize_hyphenated_uuid;

TEST(Uuid, ANewIdIsItsOwnNormalForm) {
    const std::string id = new_uuid_v4();
    ASSERT_EQ(id.size(), 36u);
    EXPECT_EQ(id[14], '4');  // version 4
    EXPECT_EQ(normalize_hyphenated_uuid(id), id);
    EXPECT_NE(new_uuid_v4(), id);
}

TEST(Uuid, AnyCaseComesOutLowercase) {
    EXPECT_EQ(normalize_hyphenated_uuid("0B1C2D3E-4F5A-4B6C-8D7E-9F0A1B2C3D4E"),
              "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e");
    EXPECT_EQ(normalize_hyphenated_uuid("abcdefAB-CDEF-0123-4567-89abcdefABCD"),
              "abcdefab-cdef-0123-4567-89abcdefabcd");
}

TEST(Uuid, OtherFormsAreRefused) {
    for (const char *text : {
             "",
             "0b1c2d3e4f5a4b6c8d7e9f0a1b2c3d4e",        // unhyphenated
             "{0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e}",  // braced
             "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4",     // one digit short
             "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e0",   // one digit over
             "0b1c2d3e4-f5a-4b6c-8d7e-9f0a1b2c3d4e",    // a hyphen one place late
             "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4-",    // a hyphen for the last digit
             "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4g",    // not hex
             "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d\x80"
             "e",                                     // a non-ASCII byte
             "g0b1c2d3-4f5a-4b6c-8d7e-9f0a1b2c3d4e",  // not hex, first
             "0b1c2d3e_4f5a-4b6c-8d7e-9f0a1b2c3d4e",  // another separator
         })
        EXPECT_EQ(normalize_hyphenated_uuid(text), std::nullopt) << text;
}
