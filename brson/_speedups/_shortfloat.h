/* repr(x) of a double, fast: the shortest digits that read back as x (Ulf Adams' Ryu, "Ryu:
 * fast float-to-string conversion", PLDI 2018), laid out as float_repr_style 'short' lays them
 * out (PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0, NULL)).  Included by _tscnc.c.
 *
 * Why: a scene writes ~30 shortest-form floats a slot (its transform, its members), and
 * Python's dtoa reaches them through bignum arithmetic (~0.7 us each, most of the compiled
 * writer's time); Ryu finds the same digits with two 128-bit products.  Both pick the shortest
 * digits in the interval of decimals that round to x and, among those, the one closest to x
 * (ties to even), so the texts are the same; tests/godot/test_tscnnode.py holds them to repr on
 * random and generated doubles.  Only normal doubles whose power of five is in the tables
 * below (about 1e-48 < |x| < 1e48) take this path: shortest_repr answers -1 for the rest and
 * the caller runs dtoa.
 *
 * The tables are Ryu's, cut short: POW5_INV_SPLIT[q] = floor(2^(bitlength(5^q) - 1 + 125) /
 * 5^q) + 1 and POW5_SPLIT[i] = 5^i scaled to 125 bits (floored), low word first
 * (scripts/ryu_tables.py prints them). */

#define RYU_INV_BITS 125
#define RYU_BITS 125

#ifdef __SIZEOF_INT128__ /* else (32-bit targets) every double goes to dtoa */
typedef unsigned __int128 ryu_u128;

static const uint64_t POW5_INV_SPLIT[32][2] = {
    {1u, 2305843009213693952u},
    {11068046444225730970u, 1844674407370955161u},
    {5165088340638674453u, 1475739525896764129u},
    {7821419487252849886u, 1180591620717411303u},
    {8824922364862649494u, 1888946593147858085u},
    {7059937891890119595u, 1511157274518286468u},
    {13026647942995916322u, 1208925819614629174u},
    {9774590264567735146u, 1934281311383406679u},
    {11509021026396098440u, 1547425049106725343u},
    {16585914450600699399u, 1237940039285380274u},
    {15469416676735388068u, 1980704062856608439u},
    {16064882156130220778u, 1584563250285286751u},
    {9162556910162266299u, 1267650600228229401u},
    {7281393426775805432u, 2028240960365167042u},
    {16893161185646375315u, 1622592768292133633u},
    {2446482504291369283u, 1298074214633706907u},
    {7603720821608101175u, 2076918743413931051u},
    {2393627842544570617u, 1661534994731144841u},
    {16672297533003297786u, 1329227995784915872u},
    {11918280793837635165u, 2126764793255865396u},
    {5845275820328197809u, 1701411834604692317u},
    {15744267100488289217u, 1361129467683753853u},
    {3054734472329800808u, 2177807148294006166u},
    {17201182836831481939u, 1742245718635204932u},
    {6382248639981364905u, 1393796574908163946u},
    {2832900194486363201u, 2230074519853062314u},
    {5955668970331000884u, 1784059615882449851u},
    {1075186361522890384u, 1427247692705959881u},
    {12788344622662355584u, 2283596308329535809u},
    {13920024512871794791u, 1826877046663628647u},
    {3757321980813615186u, 1461501637330902918u},
    {10384555214134712795u, 1169201309864722334u},
};
static const uint64_t POW5_SPLIT[64][2] = {
    {0u, 1152921504606846976u},
    {0u, 1441151880758558720u},
    {0u, 1801439850948198400u},
    {0u, 2251799813685248000u},
    {0u, 1407374883553280000u},
    {0u, 1759218604441600000u},
    {0u, 2199023255552000000u},
    {0u, 1374389534720000000u},
    {0u, 1717986918400000000u},
    {0u, 2147483648000000000u},
    {0u, 1342177280000000000u},
    {0u, 1677721600000000000u},
    {0u, 2097152000000000000u},
    {0u, 1310720000000000000u},
    {0u, 1638400000000000000u},
    {0u, 2048000000000000000u},
    {0u, 1280000000000000000u},
    {0u, 1600000000000000000u},
    {0u, 2000000000000000000u},
    {0u, 1250000000000000000u},
    {0u, 1562500000000000000u},
    {0u, 1953125000000000000u},
    {0u, 1220703125000000000u},
    {0u, 1525878906250000000u},
    {0u, 1907348632812500000u},
    {0u, 1192092895507812500u},
    {0u, 1490116119384765625u},
    {4611686018427387904u, 1862645149230957031u},
    {9799832789158199296u, 1164153218269348144u},
    {12249790986447749120u, 1455191522836685180u},
    {15312238733059686400u, 1818989403545856475u},
    {14528612397897220096u, 2273736754432320594u},
    {13692068767113150464u, 1421085471520200371u},
    {12503399940464050176u, 1776356839400250464u},
    {15629249925580062720u, 2220446049250313080u},
    {9768281203487539200u, 1387778780781445675u},
    {7598665485932036096u, 1734723475976807094u},
    {274959820560269312u, 2168404344971008868u},
    {9395221924704944128u, 1355252715606880542u},
    {2520655369026404352u, 1694065894508600678u},
    {12374191248137781248u, 2117582368135750847u},
    {14651398557727195136u, 1323488980084844279u},
    {13702562178731606016u, 1654361225106055349u},
    {3293144668132343808u, 2067951531382569187u},
    {18199116482078572544u, 1292469707114105741u},
    {8913837547316051968u, 1615587133892632177u},
    {15753982952572452864u, 2019483917365790221u},
    {12152082354571476992u, 1262177448353618888u},
    {15190102943214346240u, 1577721810442023610u},
    {9764256642163156992u, 1972152263052529513u},
    {17631875447420442880u, 1232595164407830945u},
    {8204786253993389888u, 1540743955509788682u},
    {1032610780636961552u, 1925929944387235853u},
    {2951224747111794922u, 1203706215242022408u},
    {3689030933889743652u, 1504632769052528010u},
    {13834660704216955373u, 1880790961315660012u},
    {17870034976990372916u, 1175494350822287507u},
    {17725857702810578241u, 1469367938527859384u},
    {3710578054803671186u, 1836709923159824231u},
    {26536550077201078u, 2295887403949780289u},
    {11545800389866720434u, 1434929627468612680u},
    {14432250487333400542u, 1793662034335765850u},
    {8816941072311974870u, 2242077542919707313u},
    {17039803216263454053u, 1401298464324817070u},
};

static inline int32_t ryu_pow5bits(int32_t e) { return (int32_t)(((uint32_t)e * 1217359) >> 19) + 1; }
static inline uint32_t ryu_log10_pow2(int32_t e) { return ((uint32_t)e * 78913) >> 18; }
static inline uint32_t ryu_log10_pow5(int32_t e) { return ((uint32_t)e * 732923) >> 20; }

static inline uint32_t ryu_pow5_factor(uint64_t value) {
    uint32_t count = 0;
    while (value % 5 == 0) {
        value /= 5;
        count++;
    }
    return count;
}

static inline uint64_t ryu_mul_shift(uint64_t m, const uint64_t *mul, int32_t j) {
    ryu_u128 b0 = (ryu_u128)m * mul[0], b2 = (ryu_u128)m * mul[1];
    return (uint64_t)(((b0 >> 64) + b2) >> (j - 64));
}

/* The shortest digits of a positive normal double (its mantissa and biased exponent) and the
 * decimal exponent of the last: 0, or -1 outside the tables. */
static int ryu_digits(uint64_t mantissa, uint32_t exponent, uint64_t *digits, int32_t *e10) {
    int32_t e2 = (int32_t)exponent - 1023 - 52 - 2;
    uint64_t m2 = (1ull << 52) | mantissa;
    int accept = (m2 & 1) == 0;
    uint64_t mv = 4 * m2;
    uint32_t mm_shift = mantissa != 0 || exponent <= 1;
    uint64_t vr, vp, vm;
    int vm_zeros = 0, vr_zeros = 0;
    if (e2 >= 0) {
        uint32_t q = ryu_log10_pow2(e2) - (e2 > 3);
        if (q >= sizeof POW5_INV_SPLIT / sizeof POW5_INV_SPLIT[0])
            return -1;
        int32_t k = RYU_INV_BITS + ryu_pow5bits((int32_t)q) - 1;
        int32_t i = -e2 + (int32_t)q + k;
        *e10 = (int32_t)q;
        vr = ryu_mul_shift(4 * m2, POW5_INV_SPLIT[q], i);
        vp = ryu_mul_shift(4 * m2 + 2, POW5_INV_SPLIT[q], i);
        vm = ryu_mul_shift(4 * m2 - 1 - mm_shift, POW5_INV_SPLIT[q], i);
        if (q <= 21) {
            if (mv % 5 == 0)
                vr_zeros = ryu_pow5_factor(mv) >= q;
            else if (accept)
                vm_zeros = ryu_pow5_factor(mv - 1 - mm_shift) >= q;
            else
                vp -= ryu_pow5_factor(mv + 2) >= q;
        }
    } else {
        uint32_t q = ryu_log10_pow5(-e2) - (-e2 > 1);
        int32_t i = -e2 - (int32_t)q;
        if (i >= (int32_t)(sizeof POW5_SPLIT / sizeof POW5_SPLIT[0]))
            return -1;
        int32_t k = ryu_pow5bits(i) - RYU_BITS;
        int32_t j = (int32_t)q - k;
        *e10 = (int32_t)q + e2;
        vr = ryu_mul_shift(4 * m2, POW5_SPLIT[i], j);
        vp = ryu_mul_shift(4 * m2 + 2, POW5_SPLIT[i], j);
        vm = ryu_mul_shift(4 * m2 - 1 - mm_shift, POW5_SPLIT[i], j);
        if (q <= 1) {
            vr_zeros = 1;
            if (accept)
                vm_zeros = mm_shift == 1;
            else
                --vp;
        } else if (q < 63) {
            vr_zeros = (mv & ((1ull << q) - 1)) == 0;
        }
    }
    int32_t removed = 0;
    unsigned last = 0;
    uint64_t output;
    if (vm_zeros || vr_zeros) {
        while (vp / 10 > vm / 10) {
            vm_zeros &= vm % 10 == 0;
            vr_zeros &= last == 0;
            last = (unsigned)(vr % 10);
            vr /= 10;
            vp /= 10;
            vm /= 10;
            removed++;
        }
        if (vm_zeros) {
            while (vm % 10 == 0) {
                vr_zeros &= last == 0;
                last = (unsigned)(vr % 10);
                vr /= 10;
                vp /= 10;
                vm /= 10;
                removed++;
            }
        }
        if (vr_zeros && last == 5 && vr % 2 == 0)
            last = 4; /* exactly halfway: to even */
        output = vr + ((vr == vm && (!accept || !vm_zeros)) || last >= 5);
    } else {
        int round_up = 0;
        while (vp / 10 > vm / 10) {
            round_up = vr % 10 >= 5;
            vr /= 10;
            vp /= 10;
            vm /= 10;
            removed++;
        }
        output = vr + (vr == vm || round_up);
    }
    *digits = output;
    *e10 += removed;
    return 0;
}

#endif

/* repr(x) into out (room for 32 bytes): its length, or -1 (zero, subnormal, nan, inf, or
 * outside the tables: ask dtoa). */
static int shortest_repr(double x, char *out) {
#ifndef __SIZEOF_INT128__
    return -1;
#else
    uint64_t bits;
    memcpy(&bits, &x, 8);
    uint64_t mantissa = bits & ((1ull << 52) - 1);
    uint32_t exponent = (uint32_t)(bits >> 52) & 0x7ff;
    if (exponent == 0 || exponent == 0x7ff)
        return -1;
    uint64_t value;
    int32_t e10;
    if (ryu_digits(mantissa, exponent, &value, &e10) < 0)
        return -1;
    char digits[20];
    int n = 0;
    for (uint64_t v = value; v > 0; v /= 10)
        digits[n++] = (char)('0' + v % 10);
    if (n == 0 || n > 17)
        return -1;
    for (int a = 0, b = n - 1; a < b; a++, b--) {
        char t = digits[a];
        digits[a] = digits[b];
        digits[b] = t;
    }
    int decpt = n + e10, w = 0; /* x = 0.d1d2... * 10^decpt */
    if (bits >> 63)
        out[w++] = '-';
    if (decpt <= -4 || decpt > 16) { /* format_float_short's rule for 'r' */
        out[w++] = digits[0];
        if (n > 1) {
            out[w++] = '.';
            memcpy(out + w, digits + 1, (size_t)(n - 1));
            w += n - 1;
        }
        int e = decpt - 1;
        out[w++] = 'e';
        out[w++] = e < 0 ? '-' : '+';
        if (e < 0)
            e = -e;
        if (e >= 100)
            out[w++] = (char)('0' + e / 100);
        out[w++] = (char)('0' + e / 10 % 10);
        out[w++] = (char)('0' + e % 10);
    } else if (decpt <= 0) {
        out[w++] = '0';
        out[w++] = '.';
        memset(out + w, '0', (size_t)-decpt);
        w += -decpt;
        memcpy(out + w, digits, (size_t)n);
        w += n;
    } else if (decpt < n) {
        memcpy(out + w, digits, (size_t)decpt);
        w += decpt;
        out[w++] = '.';
        memcpy(out + w, digits + decpt, (size_t)(n - decpt));
        w += n - decpt;
    } else {
        memcpy(out + w, digits, (size_t)n);
        w += n;
        memset(out + w, '0', (size_t)(decpt - n));
        w += decpt - n;
        out[w++] = '.';
        out[w++] = '0';
    }
    out[w] = 0;
    return w;
#endif
}
