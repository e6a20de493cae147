// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { GolemHookTest } from "./lib/GolemHookTest.sol";
import { EmotionalStateEnforcer } from "../src/enforcers/EmotionalStateEnforcer.sol";
import { DaimonOracle } from "../src/oracles/DaimonOracle.sol";
import { ICaveatEnforcer } from "../src/interfaces/ICaveatEnforcer.sol";
import { IERC20 } from "../src/interfaces/IERC20.sol";
import { IERC4626 } from "../src/interfaces/IERC4626.sol";
import { ExecutionLib, Execution } from "../src/libraries/ExecutionLib.sol";

contract EmotionalStateEnforcerTest is GolemHookTest {
    DaimonOracle internal oracle;
    EmotionalStateEnforcer internal enforcer;
    address internal constant GOLEM = address(0x601E);
    address internal constant TARGET = address(0x7A46E7);

    bytes4 internal constant SWAP = 0x04e45aaf; // SwapRouter02.exactInputSingle
    bytes4 internal DEPOSIT = IERC4626.deposit.selector;
    bytes4 internal TRANSFER = IERC20.transfer.selector;

    function setUp() public {
        oracle = new DaimonOracle();
        enforcer = new EmotionalStateEnforcer(address(oracle));
    }

    // ---------------------------------------------------------------- helpers

    function _selectors2() internal view returns (bytes4[] memory s) {
        s = new bytes4[](2);
        s[0] = SWAP;
        s[1] = DEPOSIT;
    }

    /// Panic guard: no restricted call when pleasure < -20, arousal > 60 or dominance < -30.
    function _terms() internal view returns (bytes memory) {
        return abi.encode(GOLEM, int8(-20), int8(60), int8(-30), _selectors2());
    }

    function _feel(
        int8 p,
        int8 a,
        int8 d
    ) internal {
        vm.prank(GOLEM);
        oracle.setPAD(p, a, d);
    }

    function _hook(
        bytes memory terms,
        bytes32 mode,
        bytes memory execution
    ) internal {
        _before(ICaveatEnforcer(address(enforcer)), terms, mode, execution, GOLEM);
    }

    function _restriction(
        int8 p,
        int8 a,
        int8 d,
        bytes4 sel
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(EmotionalStateEnforcer.EmotionalStateRestriction.selector, p, a, d, sel);
    }

    function _call(
        bytes4 sel
    ) internal pure returns (bytes memory) {
        return abi.encodePacked(sel, uint256(1));
    }

    // ---------------------------------------------------------------- construction

    function test_constructor_revertsOnZeroOracle() public {
        vm.expectRevert(EmotionalStateEnforcer.ZeroAddress.selector);
        new EmotionalStateEnforcer(address(0));
    }

    // ---------------------------------------------------------------- restriction paths

    function test_calmGolemPassesRestrictedCalls() public {
        _feel(10, 20, 0);
        _hook(_terms(), SINGLE, _single(TARGET, 0, _call(SWAP)));
        _hook(_terms(), SINGLE, _single(TARGET, 0, _call(DEPOSIT)));
    }

    function test_neutralUnreportedGolemPasses() public {
        _hook(_terms(), SINGLE, _single(TARGET, 0, _call(SWAP)));
    }

    function test_revertsOnLowPleasure() public {
        _feel(-21, 0, 0);
        vm.expectRevert(_restriction(-21, 0, 0, SWAP));
        _hook(_terms(), SINGLE, _single(TARGET, 0, _call(SWAP)));
    }

    function test_revertsOnHighArousal() public {
        _feel(0, 61, 0);
        vm.expectRevert(_restriction(0, 61, 0, DEPOSIT));
        _hook(_terms(), SINGLE, _single(TARGET, 0, _call(DEPOSIT)));
    }

    function test_revertsOnLowDominance() public {
        _feel(0, 0, -31);
        vm.expectRevert(_restriction(0, 0, -31, SWAP));
        _hook(_terms(), SINGLE, _single(TARGET, 0, _call(SWAP)));
    }

    function test_boundsAreInclusive() public {
        _feel(-20, 60, -30);
        _hook(_terms(), SINGLE, _single(TARGET, 0, _call(SWAP)));
    }

    function test_unrestrictedCallsPassEvenInPanic() public {
        _feel(-100, 100, -100);
        _hook(_terms(), SINGLE, _single(TARGET, 0, _call(TRANSFER)));
        _hook(_terms(), SINGLE, _single(TARGET, 1 ether, ""));
    }

    function test_emptyCalldataCanBeRestricted() public {
        bytes4[] memory s = new bytes4[](1);
        bytes memory terms = abi.encode(GOLEM, int8(0), int8(0), int8(0), s); // s[0] == bytes4(0)
        _feel(-1, 0, 0);
        vm.expectRevert(_restriction(-1, 0, 0, bytes4(0)));
        _hook(terms, SINGLE, _single(TARGET, 1 ether, ""));
    }

    function test_emptyRestrictedListAlwaysPasses() public {
        bytes memory terms = abi.encode(GOLEM, int8(100), int8(-100), int8(100), new bytes4[](0));
        _feel(-100, 100, -100);
        _hook(terms, SINGLE, _single(TARGET, 0, _call(SWAP)));
    }

    function test_oracleIsNotReadForUnrestrictedCalls() public {
        // An oracle address with no code would make any read revert.
        EmotionalStateEnforcer blind = new EmotionalStateEnforcer(address(0xC0DE));
        _before(ICaveatEnforcer(address(blind)), _terms(), SINGLE, _single(TARGET, 0, _call(TRANSFER)), GOLEM);
        vm.expectRevert();
        _before(ICaveatEnforcer(address(blind)), _terms(), SINGLE, _single(TARGET, 0, _call(SWAP)), GOLEM);
    }

    // ---------------------------------------------------------------- batch and modes

    function test_batch_restrictedCallAnywhereBlocks() public {
        _feel(0, 90, 0);
        Execution[] memory ex = new Execution[](3);
        ex[0] = _exec(TARGET, _call(TRANSFER));
        ex[1] = _exec(TARGET, "");
        ex[2] = _exec(TARGET, _call(DEPOSIT));
        vm.expectRevert(_restriction(0, 90, 0, DEPOSIT));
        _hook(_terms(), BATCH, _batch(ex));
    }

    function test_batch_passesWhenCalm() public {
        _feel(0, 0, 0);
        Execution[] memory ex = new Execution[](2);
        ex[0] = _exec(TARGET, _call(SWAP));
        ex[1] = _exec(TARGET, _call(DEPOSIT));
        _hook(_terms(), BATCH, _batch(ex));
    }

    function test_batch_unrestrictedOnlyPassesInPanic() public {
        _feel(-100, 100, -100);
        Execution[] memory ex = new Execution[](2);
        ex[0] = _exec(TARGET, _call(TRANSFER));
        ex[1] = _exec(TARGET, hex"01");
        _hook(_terms(), BATCH, _batch(ex));
    }

    function test_revertsOnDelegatecallMode() public {
        vm.expectRevert(abi.encodeWithSelector(ExecutionLib.UnsupportedCallType.selector, bytes1(0xff)));
        _hook(_terms(), DELEGATECALL, _single(TARGET, 0, _call(SWAP)));
    }

    function test_revertsOnMalformedSingle() public {
        vm.expectRevert(abi.encodeWithSelector(ExecutionLib.MalformedExecution.selector, uint256(20)));
        _hook(_terms(), SINGLE, abi.encodePacked(TARGET));
    }

    // ---------------------------------------------------------------- terms encoding

    function test_getTermsInfo_roundTrip() public view {
        (address g, int8 p, int8 a, int8 d, bytes4[] memory s) = enforcer.getTermsInfo(_terms());
        assertEq(g, GOLEM);
        assertEq(int256(p), -20);
        assertEq(int256(a), 60);
        assertEq(int256(d), -30);
        assertEq(s.length, 2);
        assertEq(bytes32(s[0]), bytes32(SWAP));
        assertEq(bytes32(s[1]), bytes32(DEPOSIT));
    }

    function testFuzz_getTermsInfo_roundTrip(
        address g,
        int8 p,
        int8 a,
        int8 d,
        bytes4[] memory s
    ) public view {
        (address g2, int8 p2, int8 a2, int8 d2, bytes4[] memory s2) = enforcer.getTermsInfo(abi.encode(g, p, a, d, s));
        assertEq(g2, g);
        assertEq(int256(p2), p);
        assertEq(int256(a2), a);
        assertEq(int256(d2), d);
        assertEq(s2.length, s.length);
        for (uint256 i; i < s.length; ++i) {
            assertEq(bytes32(s2[i]), bytes32(s[i]));
        }
    }

    function test_revertsOnShortTerms() public {
        vm.expectRevert(abi.encodeWithSelector(EmotionalStateEnforcer.InvalidTermsLength.selector, uint256(160)));
        _hook(abi.encode(GOLEM, int8(0), int8(0), int8(0), uint256(160)), SINGLE, _single(TARGET, 0, ""));
    }

    function test_revertsOnTrailingBytes() public {
        bytes memory terms = abi.encodePacked(_terms(), uint256(0));
        vm.expectRevert(abi.encodeWithSelector(EmotionalStateEnforcer.InvalidTermsLength.selector, terms.length));
        _hook(terms, SINGLE, _single(TARGET, 0, ""));
    }

    function test_revertsOnCountBeyondData() public {
        // Claims 3 selectors but carries 2.
        bytes memory terms = abi.encode(GOLEM, int8(0), int8(0), int8(0), uint256(160), uint256(3), SWAP, DEPOSIT);
        vm.expectRevert(abi.encodeWithSelector(EmotionalStateEnforcer.InvalidTermsLength.selector, terms.length));
        enforcer.getTermsInfo(terms);
    }

    function test_revertsOnHugeCount() public {
        bytes memory terms = abi.encode(GOLEM, int8(0), int8(0), int8(0), uint256(160), type(uint256).max);
        vm.expectRevert(abi.encodeWithSelector(EmotionalStateEnforcer.InvalidTermsLength.selector, terms.length));
        enforcer.getTermsInfo(terms);
    }

    function test_revertsOnDirtyAddress() public {
        bytes memory terms = abi.encode(uint256(1) << 200, int8(0), int8(0), int8(0), new bytes4[](0));
        vm.expectRevert(abi.encodeWithSelector(EmotionalStateEnforcer.InvalidTermsEncoding.selector, uint256(0)));
        enforcer.getTermsInfo(terms);
    }

    function test_revertsOnOutOfRangeInt8() public {
        bytes memory terms = abi.encode(GOLEM, int8(0), int256(200), int8(0), new bytes4[](0));
        vm.expectRevert(abi.encodeWithSelector(EmotionalStateEnforcer.InvalidTermsEncoding.selector, uint256(2)));
        enforcer.getTermsInfo(terms);
        terms = abi.encode(GOLEM, int8(0), int8(0), int256(-129), new bytes4[](0));
        vm.expectRevert(abi.encodeWithSelector(EmotionalStateEnforcer.InvalidTermsEncoding.selector, uint256(3)));
        enforcer.getTermsInfo(terms);
        terms = abi.encode(GOLEM, uint256(128), int8(0), int8(0), new bytes4[](0));
        vm.expectRevert(abi.encodeWithSelector(EmotionalStateEnforcer.InvalidTermsEncoding.selector, uint256(1)));
        enforcer.getTermsInfo(terms);
    }

    function test_revertsOnWrongArrayOffset() public {
        bytes memory terms = abi.encode(GOLEM, int8(0), int8(0), int8(0), uint256(192), uint256(0));
        vm.expectRevert(abi.encodeWithSelector(EmotionalStateEnforcer.InvalidTermsEncoding.selector, uint256(4)));
        _hook(terms, SINGLE, _single(TARGET, 0, ""));
    }

    function test_revertsOnDirtySelectorWord() public {
        bytes memory terms = abi.encode(GOLEM, int8(0), int8(0), int8(0), uint256(160), uint256(2), SWAP, uint256(0xdead));
        vm.expectRevert(abi.encodeWithSelector(EmotionalStateEnforcer.InvalidTermsEncoding.selector, uint256(7)));
        enforcer.getTermsInfo(terms);
        // The hook meets the bad word while scanning for an unlisted selector.
        vm.expectRevert(abi.encodeWithSelector(EmotionalStateEnforcer.InvalidTermsEncoding.selector, uint256(7)));
        _hook(terms, SINGLE, _single(TARGET, 0, _call(TRANSFER)));
    }

    // ---------------------------------------------------------------- model fuzz and view

    function testFuzz_matchesModel(
        int8 p,
        int8 a,
        int8 d,
        int8 minP,
        int8 maxA,
        int8 minD,
        bool restricted
    ) public {
        // Bounded into [-100, 100] first, so the casts cannot truncate.
        // forge-lint: disable-next-line(unsafe-typecast)
        p = int8(int256(bound(uint256(int256(p) + 128), 28, 228)) - 128);
        // forge-lint: disable-next-line(unsafe-typecast)
        a = int8(int256(bound(uint256(int256(a) + 128), 28, 228)) - 128);
        // forge-lint: disable-next-line(unsafe-typecast)
        d = int8(int256(bound(uint256(int256(d) + 128), 28, 228)) - 128);
        _feel(p, a, d);
        bytes memory terms = abi.encode(GOLEM, minP, maxA, minD, _selectors2());
        bytes4 sel = restricted ? SWAP : TRANSFER;
        bool blocked = restricted && (p < minP || a > maxA || d < minD);
        assertEq(enforcer.isRestricted(terms, sel), blocked);
        if (blocked) vm.expectRevert(_restriction(p, a, d, sel));
        _hook(terms, SINGLE, _single(TARGET, 0, _call(sel)));
    }

    function test_isRestricted() public {
        assertFalse(enforcer.isRestricted(_terms(), SWAP));
        _feel(-50, 0, 0);
        assertTrue(enforcer.isRestricted(_terms(), SWAP));
        assertTrue(enforcer.isRestricted(_terms(), DEPOSIT));
        assertFalse(enforcer.isRestricted(_terms(), TRANSFER));
    }

    event log_named_uint(string key, uint256 val);

    function test_gas_beforeHook() public {
        bytes memory terms = _terms();
        bytes memory restrictedCall = _single(TARGET, 0, _call(SWAP));
        bytes memory freeCall = _single(TARGET, 0, _call(TRANSFER));
        vm.prank(MANAGER);
        uint256 g = gasleft();
        enforcer.beforeHook(terms, "", SINGLE, freeCall, HASH, DELEGATOR, GOLEM);
        emit log_named_uint("EmotionalState.beforeHook unrestricted call (cold, no oracle read)", g - gasleft());
        vm.prank(MANAGER);
        g = gasleft();
        enforcer.beforeHook(terms, "", SINGLE, restrictedCall, HASH, DELEGATOR, GOLEM);
        emit log_named_uint("EmotionalState.beforeHook restricted call (cold oracle)", g - gasleft());
    }
}
