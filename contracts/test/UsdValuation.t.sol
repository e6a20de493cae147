// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { PricedAssetsTest } from "./helpers/PricedAssetsTest.sol";
import { Execution } from "../src/libraries/ExecutionLib.sol";
import { UsdValuation, TokenFeed } from "../src/libraries/UsdValuation.sol";
import { MockPriceFeed } from "../src/test-assets/MockPriceFeed.sol";

contract UsdValuationHarness {
    function toUsd(
        uint256 amount,
        uint256 price,
        uint256 td,
        uint256 fd
    ) external pure returns (uint256) {
        return UsdValuation.toUsd(amount, price, td, fd);
    }

    function mulDiv(
        uint256 x,
        uint256 y,
        uint256 d,
        bool up
    ) external pure returns (uint256) {
        return UsdValuation.mulDiv(x, y, d, up);
    }

    function readPrice(
        address feed,
        uint256 maxAge
    ) external view returns (uint256, uint8) {
        return UsdValuation.readPrice(feed, maxAge);
    }

    function valueOf(
        Execution[] memory e,
        TokenFeed[] memory feeds,
        uint256 maxAge
    ) external view returns (uint256) {
        return UsdValuation.valueOf(e, feeds, maxAge);
    }

    function requireFeedsLayout(
        bytes calldata terms,
        uint256 headWords
    ) external pure {
        UsdValuation.requireFeedsLayout(terms, headWords);
    }

    function validateFeeds(
        TokenFeed[] memory feeds
    ) external pure {
        UsdValuation.validateFeeds(feeds);
    }

    function wordAt(
        bytes memory data,
        uint256 offset
    ) external pure returns (uint256) {
        return UsdValuation.wordAt(data, offset);
    }
}

contract UsdValuationTest is PricedAssetsTest {
    UsdValuationHarness h;

    function setUp() public {
        setUpAssets();
        h = new UsdValuationHarness();
    }

    // ------------------------------------------------------------------ toUsd

    function test_toUsd_examples() public view {
        assertEq(h.toUsd(1e6, 1e8, 6, 8), 1e6, "1 USDC at $1");
        assertEq(h.toUsd(1e18, 3000e8, 18, 8), 3000e6, "1 ETH at $3000");
        assertEq(h.toUsd(5e17, 1e18, 18, 18), 5e5, "0.5 DAI on an 18-decimal feed");
        assertEq(h.toUsd(1, 1, 0, 0), 1e6, "1 unit of a 0-decimal token at $1 (0-decimal feed)");
    }

    function test_toUsd_roundsUp() public view {
        assertEq(h.toUsd(1, 3000e8, 18, 8), 1, "1 wei costs one micro-dollar, never zero");
        assertEq(h.toUsd(1e12, 1e8, 18, 8), 1, "exactly 1e-6 USD");
        assertEq(h.toUsd(1e12 + 1, 1e8, 18, 8), 2, "a hair above rounds up");
        assertEq(h.toUsd(0, 3000e8, 18, 8), 0, "zero is free");
    }

    function test_toUsd_unlimitedAmountIsUnlimited() public view {
        assertEq(h.toUsd(type(uint256).max, 1, 18, 8), type(uint256).max);
    }

    function test_toUsd_saturatesInsteadOfOverflowing() public view {
        assertEq(h.toUsd(type(uint256).max - 1, type(uint128).max, 0, 0), type(uint256).max);
        // e <= 6 branch: price * 10**(6-e) overflows
        assertEq(h.toUsd(1, type(uint256).max / 10, 0, 0), type(uint256).max);
    }

    function test_toUsd_hugeDecimals() public view {
        // k = e - 6 > 77 takes the two-step path; the reference is still exact for these inputs.
        assertEq(h.toUsd(10 ** 70, 10 ** 30, 60, 40), 1e6, "1e100 * 1e6 / 1e100");
        assertEq(h.toUsd(10 ** 75, 10 ** 40, 70, 40), 1e11, "1e115 * 1e6 / 1e110");
        assertEq(h.toUsd(10 ** 75 + 1, 10 ** 40, 70, 40), 1e11 + 1, "rounded up across both steps");
        assertEq(h.toUsd(1, 1, 255, 255), 1, "anything positive is at least one micro-dollar");
        assertEq(h.toUsd(type(uint256).max - 1, 2 ** 254, 200, 200), 1, "k - 77 >= 77");
    }

    function testFuzz_toUsd_matchesReference(
        uint256 amount,
        uint256 answer,
        uint8 td,
        uint8 fd
    ) public view {
        amount = bound(amount, 0, type(uint128).max);
        answer = bound(answer, 1, 2 ** 100);
        td = uint8(bound(td, 0, 30));
        fd = uint8(bound(fd, 0, 30));
        assertEq(h.toUsd(amount, answer, td, fd), refUsd(amount, answer, td, fd), "toUsd");
    }

    function testFuzz_toUsd_isExactCeiling(
        uint256 amount,
        uint256 answer,
        uint8 td,
        uint8 fd
    ) public view {
        amount = bound(amount, 1, 2 ** 160);
        answer = bound(answer, 1, 2 ** 90);
        td = uint8(bound(td, 0, 40));
        fd = uint8(bound(fd, 0, 36));
        uint256 usd = h.toUsd(amount, answer, td, fd);
        assertGe(usd, 1, "positive amounts cost something");
        // ceil(A * 1e6 / 10**(td+fd)) with A = amount * answer, through the (separately tested) 512-bit mulDiv
        uint256 expected = h.mulDiv(amount * answer, 1e6, 10 ** (uint256(td) + fd), true);
        assertEq(usd, expected, "ceil");
    }

    /// Same value written with j more token decimals must cost the same, also past 10**77 (two-step path).
    function testFuzz_toUsd_scaleInvariant(
        uint256 amount,
        uint256 answer,
        uint8 td,
        uint8 fd,
        uint8 j
    ) public view {
        amount = bound(amount, 0, 2 ** 100);
        answer = bound(answer, 1, 2 ** 60);
        td = uint8(bound(td, 0, 30));
        fd = uint8(bound(fd, 0, 50));
        j = uint8(bound(j, 0, 45));
        assertEq(h.toUsd(amount * 10 ** j, answer, uint256(td) + j, fd), h.toUsd(amount, answer, td, fd), "scale invariance");
    }

    // ------------------------------------------------------------------ mulDiv

    function testFuzz_mulDiv_matchesNative(
        uint128 x,
        uint128 y,
        uint256 d
    ) public view {
        d = bound(d, 1, type(uint256).max);
        uint256 p = uint256(x) * y;
        assertEq(h.mulDiv(x, y, d, false), p / d, "floor");
        assertEq(h.mulDiv(x, y, d, true), p / d + (p % d == 0 ? 0 : 1), "ceil");
    }

    function testFuzz_mulDiv_512bit(
        uint256 x,
        uint256 y,
        uint256 d
    ) public view {
        d = bound(d, 1, type(uint256).max);
        uint256 r = h.mulDiv(x, y, d, false);
        if (r == type(uint256).max) return; // saturated (or exactly max)
        // r * d <= x * y < (r + 1) * d, checked in 512 bits via mulmod identities
        uint256 rem = mulmod(x, y, d);
        // x*y == r*d + rem  (mod 2**256 and mod (2**256 - 1) together pin the 512-bit value)
        unchecked {
            assertEq(r * d + rem, x * y, "mod 2^256");
        }
        assertEq(addmod(mulmod(r, d, type(uint256).max), rem, type(uint256).max), mulmod(x, y, type(uint256).max), "mod 2^256-1");
        uint256 up = h.mulDiv(x, y, d, true);
        assertEq(up, rem == 0 ? r : r + 1, "ceil");
    }

    function test_mulDiv_saturates() public view {
        assertEq(h.mulDiv(type(uint256).max, type(uint256).max, 1, false), type(uint256).max);
        assertEq(h.mulDiv(type(uint256).max, 2, 2, false), type(uint256).max);
        assertEq(h.mulDiv(type(uint256).max, 3, 2, true), type(uint256).max);
        assertEq(h.mulDiv(2 ** 255, 4, 8, false), 2 ** 254);
    }

    // ------------------------------------------------------------------ readPrice

    function test_readPrice_fresh() public view {
        (uint256 p, uint8 d) = h.readPrice(address(ethFeed), MAX_AGE);
        assertEq(p, 3000e8);
        assertEq(uint256(d), 8);
    }

    function test_readPrice_ageBoundary() public {
        ethFeed.setRoundData(3000e8, T0 - MAX_AGE);
        h.readPrice(address(ethFeed), MAX_AGE); // exactly maxAge old: accepted
        ethFeed.setRoundData(3000e8, T0 - MAX_AGE - 1);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.StalePrice.selector, address(ethFeed), T0 - MAX_AGE - 1, MAX_AGE));
        h.readPrice(address(ethFeed), MAX_AGE);
    }

    function test_readPrice_zeroMaxAgeNeedsSameSecond() public {
        h.readPrice(address(ethFeed), 0);
        vm.warp(T0 + 1);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.StalePrice.selector, address(ethFeed), T0, 0));
        h.readPrice(address(ethFeed), 0);
    }

    function test_readPrice_futureUpdatedAtIsFresh() public {
        ethFeed.setRoundData(3000e8, T0 + 600);
        (uint256 p,) = h.readPrice(address(ethFeed), 0);
        assertEq(p, 3000e8);
    }

    function test_readPrice_neverUpdatedIsStale() public {
        ethFeed.setRoundData(3000e8, 0);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.StalePrice.selector, address(ethFeed), 0, MAX_AGE));
        h.readPrice(address(ethFeed), MAX_AGE);
    }

    function test_readPrice_zeroAnswer() public {
        ethFeed.setAnswer(0);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.InvalidPrice.selector, address(ethFeed), int256(0)));
        h.readPrice(address(ethFeed), MAX_AGE);
    }

    function test_readPrice_negativeAnswer() public {
        ethFeed.setAnswer(-1);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.InvalidPrice.selector, address(ethFeed), int256(-1)));
        h.readPrice(address(ethFeed), MAX_AGE);
    }

    function test_readPrice_staleCheckedBeforeSign() public {
        ethFeed.setRoundData(-5, T0 - MAX_AGE - 1);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.StalePrice.selector, address(ethFeed), T0 - MAX_AGE - 1, MAX_AGE));
        h.readPrice(address(ethFeed), MAX_AGE);
    }

    // ------------------------------------------------------------------ valueOf

    function test_valueOf_native() public view {
        assertEq(h.valueOf(execs(Execution(PAYEE, 1 ether, "")), allFeeds(), MAX_AGE), 3000e6);
    }

    function test_valueOf_nativeWithoutFeedIsUnpriced() public {
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.UnpricedAsset.selector, address(0)));
        h.valueOf(execs(Execution(PAYEE, 1, "")), tokenFeedsOnly(), MAX_AGE);
    }

    function test_valueOf_tokenMethods() public view {
        TokenFeed[] memory f = allFeeds();
        assertEq(h.valueOf(execs(Execution(address(usdc), 0, transferCall(5e6))), f, MAX_AGE), 5e6, "transfer");
        assertEq(h.valueOf(execs(Execution(address(usdc), 0, transferFromCall(7e6))), f, MAX_AGE), 7e6, "from");
        assertEq(h.valueOf(execs(Execution(address(weth), 0, approveCall(1e18))), f, MAX_AGE), 3000e6, "approve");
        assertEq(h.valueOf(execs(Execution(address(weth), 0, approveCall(0))), f, MAX_AGE), 0, "approve 0");
        assertEq(h.valueOf(execs(Execution(address(dai), 0, transferCall(2e18))), f, MAX_AGE), 2e6, "dai");
    }

    function test_valueOf_othersCountZero() public view {
        TokenFeed[] memory f = allFeeds();
        assertEq(h.valueOf(execs(Execution(address(unlisted), 0, transferCall(1e30))), f, MAX_AGE), 0, "unlisted");
        bytes memory mint = abi.encodeWithSignature("mint(address,uint256)", PAYEE, 1e30);
        assertEq(h.valueOf(execs(Execution(address(usdc), 0, mint)), f, MAX_AGE), 0, "other selector");
        assertEq(h.valueOf(execs(Execution(address(usdc), 0, hex"a9059c")), f, MAX_AGE), 0, "3-byte calldata");
        assertEq(h.valueOf(execs(Execution(address(0), 0, transferCall(1e30))), f, MAX_AGE), 0, "target 0");
        assertEq(h.valueOf(new Execution[](0), f, MAX_AGE), 0, "empty batch");
    }

    function test_valueOf_sumsPerAssetAndRoundsOnce() public view {
        // two 0.5 micro-dollar transfers of WETH: summed to 1 micro-dollar, not 2
        uint256 half = uint256(1e12) / 6000; // floor, just under half a micro-dollar
        Execution[] memory e = execs(
            Execution(address(weth), 0, transferCall(half)),
            Execution(address(weth), 0, transferCall(half)),
            Execution(PAYEE, 1 ether, "")
        );
        assertEq(h.valueOf(e, allFeeds(), MAX_AGE), refUsd(2 * half, 3000e8, 18, 8) + 3000e6);
        assertEq(refUsd(2 * half, 3000e8, 18, 8), 1);
    }

    function test_valueOf_sumOverflowIsUnlimited() public view {
        Execution[] memory e = execs(
            Execution(address(usdc), 0, transferCall(type(uint256).max - 1)), Execution(address(usdc), 0, approveCall(2))
        );
        assertEq(h.valueOf(e, allFeeds(), MAX_AGE), type(uint256).max);
    }

    function test_valueOf_shortCalldataReadsZeroPadded() public view {
        // transfer(to, amount) cut after the amount's first byte: the token would read 0x01 << 248
        bytes memory cd = abi.encodePacked(bytes4(0xa9059cbb), bytes32(uint256(uint160(PAYEE))), bytes1(0x01));
        uint256 usd = h.valueOf(execs(Execution(address(usdc), 0, cd)), allFeeds(), MAX_AGE);
        assertEq(usd, h.toUsd(uint256(1) << 248, 1e8, 6, 8));
    }

    function test_valueOf_onlyUsedFeedsAreRead() public {
        daiFeed.setAnswer(0); // broken, but DAI is not moved
        assertEq(h.valueOf(execs(Execution(address(usdc), 0, transferCall(1e6))), allFeeds(), MAX_AGE), 1e6);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.InvalidPrice.selector, address(daiFeed), int256(0)));
        h.valueOf(execs(Execution(address(dai), 0, transferCall(1))), allFeeds(), MAX_AGE);
    }

    function test_valueOf_firstListedEntryWins() public {
        MockPriceFeed expensive = new MockPriceFeed(8, 10e8, "USDC / USD x10");
        TokenFeed[] memory f = new TokenFeed[](2);
        f[0] = TokenFeed(address(usdc), 6, address(expensive));
        f[1] = TokenFeed(address(usdc), 6, address(usdcFeed));
        assertEq(h.valueOf(execs(Execution(address(usdc), 0, transferCall(1e6))), f, MAX_AGE), 10e6);
    }

    function testFuzz_valueOf_matchesReference(
        uint256 eth,
        uint256 u,
        uint256 w,
        uint256 d,
        uint256 priceSeed
    ) public {
        eth = bound(eth, 0, 1e30);
        u = bound(u, 0, 1e24);
        w = bound(w, 0, 1e30);
        d = bound(d, 0, 1e30);
        uint256 ethPrice = bound(priceSeed, 1, 1e14);
        uint256 daiPrice = bound(priceSeed >> 128, 1, 1e20);
        ethFeed.setAnswer(int256(ethPrice));
        daiFeed.setAnswer(int256(daiPrice));
        Execution[] memory e = new Execution[](4);
        e[0] = Execution(PAYEE, eth, "");
        e[1] = Execution(address(usdc), 0, transferCall(u));
        e[2] = Execution(address(weth), 0, approveCall(w));
        e[3] = Execution(address(dai), 0, transferFromCall(d));
        uint256 expected =
            refUsd(eth, ethPrice, 18, 8) + refUsd(u, 1e8, 6, 8) + refUsd(w, 3000e8, 18, 8) + refUsd(d, daiPrice, 18, 18);
        assertEq(h.valueOf(e, allFeeds(), MAX_AGE), expected, "valueOf");
    }

    // ------------------------------------------------------------------ terms helpers

    function test_requireFeedsLayout() public view {
        h.requireFeedsLayout(abi.encode(uint256(1), uint32(2), allFeeds()), 3);
        h.requireFeedsLayout(abi.encode(uint256(1), uint32(2), new TokenFeed[](0)), 3);
        h.requireFeedsLayout(abi.encode(uint256(1), uint64(1), uint32(2), allFeeds()), 4);
    }

    function test_requireFeedsLayout_rejects() public {
        bytes memory good = abi.encode(uint256(1), uint32(2), allFeeds());
        _expectLayout(new bytes(0), 3);
        _expectLayout(new bytes(96), 3); // head only
        _expectLayout(bytes.concat(good, new bytes(1)), 3); // trailing byte
        _expectLayout(bytes.concat(good, new bytes(96)), 3); // trailing entry
        bytes memory shortBy32 = new bytes(good.length - 32);
        for (uint256 i; i < shortBy32.length; ++i) {
            shortBy32[i] = good[i];
        }
        _expectLayout(shortBy32, 3);
        bytes memory badOffset = bytes.concat(good);
        badOffset[95] = 0x80;
        _expectLayout(badOffset, 3);
        bytes memory hugeCount = bytes.concat(good);
        hugeCount[96] = 0xff; // count = 0xff.. : count * 96 would overflow
        _expectLayout(hugeCount, 3);
        _expectLayout(good, 4); // wrong head size
    }

    function _expectLayout(
        bytes memory terms,
        uint256 head
    ) private {
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.InvalidTermsLength.selector, terms.length));
        h.requireFeedsLayout(terms, head);
    }

    function test_validateFeeds() public {
        TokenFeed[] memory f = allFeeds();
        h.validateFeeds(f);
        f[2].feed = address(0);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.InvalidTokenFeed.selector, 2, address(weth), uint8(18), address(0)));
        h.validateFeeds(f);
        f = allFeeds();
        f[0].decimals = 6; // native must be 18
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.InvalidTokenFeed.selector, 0, address(0), uint8(6), address(ethFeed)));
        h.validateFeeds(f);
    }

    function test_wordAt_zeroPads() public view {
        bytes memory b = hex"0102";
        assertEq(h.wordAt(b, 0), uint256(bytes32(hex"0102")));
        assertEq(h.wordAt(b, 1), uint256(bytes32(hex"02")));
        assertEq(h.wordAt(b, 2), 0);
        assertEq(h.wordAt(b, 100), 0);
    }
}
