// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { GolemHookTest } from "./lib/GolemHookTest.sol";
import { GolemPhaseEnforcer } from "../src/enforcers/GolemPhaseEnforcer.sol";
import { Ownable2Step } from "../src/access/Ownable2Step.sol";
import { VitalityOracle } from "../src/oracles/VitalityOracle.sol";
import { IVitalityOracle } from "../src/interfaces/IVitalityOracle.sol";
import { ICaveatEnforcer } from "../src/interfaces/ICaveatEnforcer.sol";
import { IERC20 } from "../src/interfaces/IERC20.sol";
import { IERC4626 } from "../src/interfaces/IERC4626.sol";
import { ExecutionLib, Execution } from "../src/libraries/ExecutionLib.sol";

// The protocol surfaces the seeded selector table must match, declared from their published ABIs so the
// selectors are computed by the compiler rather than copied as hex.
interface PhaseSwapRouter02 {
    struct ExactInputSingleParams {
        address tokenIn;
        address tokenOut;
        uint24 fee;
        address recipient;
        uint256 amountIn;
        uint256 amountOutMinimum;
        uint160 sqrtPriceLimitX96;
    }

    struct ExactInputParams {
        bytes path;
        address recipient;
        uint256 amountIn;
        uint256 amountOutMinimum;
    }

    struct ExactOutputSingleParams {
        address tokenIn;
        address tokenOut;
        uint24 fee;
        address recipient;
        uint256 amountOut;
        uint256 amountInMaximum;
        uint160 sqrtPriceLimitX96;
    }

    struct ExactOutputParams {
        bytes path;
        address recipient;
        uint256 amountOut;
        uint256 amountInMaximum;
    }

    function exactInputSingle(
        ExactInputSingleParams calldata params
    ) external payable returns (uint256);
    function exactInput(
        ExactInputParams calldata params
    ) external payable returns (uint256);
    function exactOutputSingle(
        ExactOutputSingleParams calldata params
    ) external payable returns (uint256);
    function exactOutput(
        ExactOutputParams calldata params
    ) external payable returns (uint256);
}

interface PhaseSwapRouterV1 {
    struct ExactInputSingleParams {
        address tokenIn;
        address tokenOut;
        uint24 fee;
        address recipient;
        uint256 deadline;
        uint256 amountIn;
        uint256 amountOutMinimum;
        uint160 sqrtPriceLimitX96;
    }

    struct ExactInputParams {
        bytes path;
        address recipient;
        uint256 deadline;
        uint256 amountIn;
        uint256 amountOutMinimum;
    }

    function exactInputSingle(
        ExactInputSingleParams calldata params
    ) external payable returns (uint256);
    function exactInput(
        ExactInputParams calldata params
    ) external payable returns (uint256);
}

interface PhaseV2Router {
    function swapExactTokensForTokens(
        uint256 amountIn,
        uint256 amountOutMin,
        address[] calldata path,
        address to,
        uint256 deadline
    ) external returns (uint256[] memory);
    function addLiquidity(
        address tokenA,
        address tokenB,
        uint256 amountADesired,
        uint256 amountBDesired,
        uint256 amountAMin,
        uint256 amountBMin,
        address to,
        uint256 deadline
    ) external returns (uint256, uint256, uint256);
    function removeLiquidity(
        address tokenA,
        address tokenB,
        uint256 liquidity,
        uint256 amountAMin,
        uint256 amountBMin,
        address to,
        uint256 deadline
    ) external returns (uint256, uint256);
}

interface PhasePositionManager {
    struct MintParams {
        address token0;
        address token1;
        uint24 fee;
        int24 tickLower;
        int24 tickUpper;
        uint256 amount0Desired;
        uint256 amount1Desired;
        uint256 amount0Min;
        uint256 amount1Min;
        address recipient;
        uint256 deadline;
    }

    struct IncreaseLiquidityParams {
        uint256 tokenId;
        uint256 amount0Desired;
        uint256 amount1Desired;
        uint256 amount0Min;
        uint256 amount1Min;
        uint256 deadline;
    }

    struct DecreaseLiquidityParams {
        uint256 tokenId;
        uint128 liquidity;
        uint256 amount0Min;
        uint256 amount1Min;
        uint256 deadline;
    }

    struct CollectParams {
        uint256 tokenId;
        address recipient;
        uint128 amount0Max;
        uint128 amount1Max;
    }

    function mint(
        MintParams calldata params
    ) external payable returns (uint256, uint128, uint256, uint256);
    function increaseLiquidity(
        IncreaseLiquidityParams calldata params
    ) external payable returns (uint128, uint256, uint256);
    function decreaseLiquidity(
        DecreaseLiquidityParams calldata params
    ) external payable returns (uint256, uint256);
    function collect(
        CollectParams calldata params
    ) external payable returns (uint256, uint256);
    function burn(
        uint256 tokenId
    ) external payable;
}

interface PhaseTokenMessengerV2 {
    function depositForBurn(
        uint256 amount,
        uint32 destinationDomain,
        bytes32 mintRecipient,
        address burnToken,
        bytes32 destinationCaller,
        uint256 maxFee,
        uint32 minFinalityThreshold
    ) external;
}

interface PhaseDelegationManager {
    struct Caveat {
        address enforcer;
        bytes terms;
        bytes args;
    }

    struct Delegation {
        address delegate;
        address delegator;
        bytes32 authority;
        Caveat[] caveats;
        uint256 salt;
        bytes signature;
    }

    function enableDelegation(
        Delegation calldata delegation
    ) external;
    function disableDelegation(
        Delegation calldata delegation
    ) external;
}

/// An oracle that reports whatever it is told, to reach the enforcer's defensive branches.
contract PhaseRiggedOracle {
    bool public registered = true;
    uint8 public phase;

    function set(
        bool registered_,
        uint8 phase_
    ) external {
        registered = registered_;
        phase = phase_;
    }

    function getPhase(
        address
    ) external view returns (bool, uint8) {
        return (registered, phase);
    }
}

/// An oracle whose every read fails, to show the window is checked before the oracle is called.
contract PhaseUnreachableOracle {
    error OracleCalled();

    function getPhase(
        address
    ) external pure returns (bool, uint8) {
        revert OracleCalled();
    }
}

contract GolemPhaseEnforcerTest is GolemHookTest {
    uint8 internal constant OPEN = 0x01;
    uint8 internal constant CLOSE = 0x02;
    uint8 internal constant TRANSFER = 0x04;
    uint8 internal constant SUB = 0x08;
    uint8 internal constant SETTLE = 0x10;

    address internal constant OWNER = address(0x0A);
    address internal constant ADMIN = address(0xAD);
    address internal constant TARGET = address(0x7A46E7);
    address internal constant REPLICANT = address(0x4E91);

    VitalityOracle internal oracle;
    GolemPhaseEnforcer internal enforcer;
    address[5] internal golemIn; // golemIn[p] is registered and sits in phase p

    struct Entry {
        bytes4 selector;
        uint8 class;
        string name;
    }

    function setUp() public {
        oracle = new VitalityOracle(OWNER);
        enforcer = new GolemPhaseEnforcer(address(oracle), ADMIN);
        for (uint8 p; p < 5; ++p) {
            address g = address(uint160(0x6000 + p));
            golemIn[p] = g;
            vm.prank(OWNER);
            oracle.registerGolem(g);
            vm.prank(g);
            oracle.updatePhase(p, 10_000 - uint16(p) * 2000);
        }
    }

    // ---------------------------------------------------------------- helpers

    function _terms(
        address golem
    ) internal pure returns (bytes memory) {
        return abi.encodePacked(golem);
    }

    function _hook(
        bytes memory terms,
        bytes32 mode,
        bytes memory execution,
        address redeemer
    ) internal {
        _before(ICaveatEnforcer(address(enforcer)), terms, mode, execution, redeemer);
    }

    function _ok(
        address golem,
        bytes memory callData
    ) internal returns (bool) {
        return _passes(ICaveatEnforcer(address(enforcer)), _terms(golem), SINGLE, _single(TARGET, 0, callData), golem);
    }

    function _call(
        bytes4 selector
    ) internal pure returns (bytes memory) {
        return abi.encodePacked(selector, uint256(1), uint256(2));
    }

    function _notAllowed(
        address golem,
        uint8 phase,
        bytes4 selector,
        uint8 required
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(GolemPhaseEnforcer.ActionNotAllowedInPhase.selector, golem, phase, selector, required);
    }

    function _defaultMask(
        uint8 phase
    ) internal pure returns (uint8) {
        return [uint8(0x1F), 0x17, 0x16, 0x16, 0x10][phase];
    }

    /// The seeded table, with selectors computed from the protocol interfaces.
    function _table() internal pure returns (Entry[] memory t) {
        t = new Entry[](25);
        t[0] = Entry(IERC20.transfer.selector, TRANSFER, "ERC20.transfer");
        t[1] = Entry(IERC20.transferFrom.selector, TRANSFER, "ERC20.transferFrom");
        t[2] = Entry(IERC20.approve.selector, OPEN, "ERC20.approve");
        t[3] = Entry(IERC4626.deposit.selector, OPEN, "ERC4626.deposit");
        t[4] = Entry(IERC4626.mint.selector, OPEN, "ERC4626.mint");
        t[5] = Entry(IERC4626.withdraw.selector, CLOSE, "ERC4626.withdraw");
        t[6] = Entry(IERC4626.redeem.selector, SETTLE, "ERC4626.redeem");
        t[7] = Entry(PhaseSwapRouter02.exactInputSingle.selector, OPEN, "SwapRouter02.exactInputSingle");
        t[8] = Entry(PhaseSwapRouter02.exactInput.selector, OPEN, "SwapRouter02.exactInput");
        t[9] = Entry(PhaseSwapRouter02.exactOutputSingle.selector, OPEN, "SwapRouter02.exactOutputSingle");
        t[10] = Entry(PhaseSwapRouter02.exactOutput.selector, OPEN, "SwapRouter02.exactOutput");
        t[11] = Entry(PhaseSwapRouterV1.exactInputSingle.selector, OPEN, "SwapRouter.exactInputSingle");
        t[12] = Entry(PhaseSwapRouterV1.exactInput.selector, OPEN, "SwapRouter.exactInput");
        t[13] = Entry(PhaseV2Router.swapExactTokensForTokens.selector, OPEN, "V2.swapExactTokensForTokens");
        t[14] = Entry(PhaseV2Router.addLiquidity.selector, OPEN, "V2.addLiquidity");
        t[15] = Entry(PhaseV2Router.removeLiquidity.selector, CLOSE, "V2.removeLiquidity");
        t[16] = Entry(PhasePositionManager.mint.selector, OPEN, "NPM.mint");
        t[17] = Entry(PhasePositionManager.increaseLiquidity.selector, OPEN, "NPM.increaseLiquidity");
        t[18] = Entry(PhasePositionManager.decreaseLiquidity.selector, CLOSE, "NPM.decreaseLiquidity");
        t[19] = Entry(PhasePositionManager.collect.selector, SETTLE, "NPM.collect");
        t[20] = Entry(PhasePositionManager.burn.selector, SETTLE, "NPM.burn");
        t[21] = Entry(PhaseDelegationManager.enableDelegation.selector, SUB, "DM.enableDelegation");
        t[22] = Entry(PhaseDelegationManager.disableDelegation.selector, SUB, "DM.disableDelegation");
        t[23] = Entry(bytes4(0), TRANSFER, "empty calldata");
        t[24] = Entry(PhaseTokenMessengerV2.depositForBurn.selector, OPEN, "CCTP.depositForBurn");
    }

    // ---------------------------------------------------------------- construction and table

    function test_constructor_revertsOnZeroOracle() public {
        vm.expectRevert(GolemPhaseEnforcer.ZeroAddress.selector);
        new GolemPhaseEnforcer(address(0), ADMIN);
    }

    function test_constructor_revertsOnZeroAdmin() public {
        vm.expectRevert(GolemPhaseEnforcer.ZeroAddress.selector);
        new GolemPhaseEnforcer(address(oracle), address(0));
    }

    function test_constructor_emitsTheSeededTable() public {
        vm.recordLogs();
        new GolemPhaseEnforcer(address(oracle), ADMIN);
        // OwnershipTransferred + one ActionClassSet per seeded entry.
        assertEq(vm.getRecordedLogs().length, 1 + _table().length);
    }

    function test_seededTable_matchesRealSelectors() public view {
        Entry[] memory t = _table();
        for (uint256 i; i < t.length; ++i) {
            assertEq(uint256(enforcer.actionClassOf(t[i].selector)), t[i].class, t[i].name);
        }
        // Spot-check the hex the docs quote, so docs and code cannot drift apart.
        assertEq(bytes32(PhaseSwapRouter02.exactInputSingle.selector), bytes32(bytes4(0x04e45aaf)));
        assertEq(bytes32(PhasePositionManager.collect.selector), bytes32(bytes4(0xfc6f7865)));
        assertEq(bytes32(PhaseDelegationManager.enableDelegation.selector), bytes32(bytes4(0x3ed01015)));
        assertEq(bytes32(PhaseDelegationManager.disableDelegation.selector), bytes32(bytes4(0x49934047)));
    }

    function test_constants() public view {
        // The class bits are not getters (each selector would cost every hook call dispatch gas); the seeded
        // table shows their values.
        assertEq(uint256(enforcer.actionClassOf(IERC20.approve.selector)), OPEN);
        assertEq(uint256(enforcer.actionClassOf(IERC4626.withdraw.selector)), CLOSE);
        assertEq(uint256(enforcer.actionClassOf(IERC20.transfer.selector)), TRANSFER);
        assertEq(uint256(enforcer.actionClassOf(PhaseDelegationManager.enableDelegation.selector)), SUB);
        assertEq(uint256(enforcer.actionClassOf(IERC4626.redeem.selector)), SETTLE);
        assertEq(bytes32(enforcer.DEFAULT_PHASE_MASKS()), bytes32(bytes5(0x1F17161610)));
        assertEq(address(enforcer.vitalityOracle()), address(oracle));
        assertEq(enforcer.owner(), ADMIN);
    }

    // ---------------------------------------------------------------- default phase rules

    /// Every seeded selector against every phase: passes exactly when its class is in the default mask.
    function test_defaultMatrix_everySelectorEveryPhase() public {
        Entry[] memory t = _table();
        for (uint8 p; p < 5; ++p) {
            for (uint256 i; i < t.length; ++i) {
                bytes memory callData = t[i].selector == bytes4(0) ? bytes("") : _call(t[i].selector);
                bool expected = t[i].class & _defaultMask(p) == t[i].class;
                assertEq(_ok(golemIn[p], callData), expected, t[i].name);
            }
        }
    }

    function test_thriving_allowsEverything() public {
        _hook(_terms(golemIn[0]), SINGLE, _single(TARGET, 0, _call(IERC4626.deposit.selector)), golemIn[0]);
        _hook(_terms(golemIn[0]), SINGLE, _single(TARGET, 0, _call(PhaseDelegationManager.enableDelegation.selector)), golemIn[0]);
        _hook(_terms(golemIn[0]), SINGLE, _single(TARGET, 1 ether, ""), golemIn[0]);
    }

    function test_stable_refusesSubdelegation() public {
        bytes4 sel = PhaseDelegationManager.enableDelegation.selector;
        vm.expectRevert(_notAllowed(golemIn[1], 1, sel, SUB));
        _hook(_terms(golemIn[1]), SINGLE, _single(TARGET, 0, _call(sel)), golemIn[1]);
    }

    function test_conservation_refusesNewPositions() public {
        bytes4 sel = PhaseSwapRouter02.exactInputSingle.selector;
        vm.expectRevert(_notAllowed(golemIn[2], 2, sel, OPEN));
        _hook(_terms(golemIn[2]), SINGLE, _single(TARGET, 0, _call(sel)), golemIn[2]);
        // ...but closes, transfers and settles.
        _hook(_terms(golemIn[2]), SINGLE, _single(TARGET, 0, _call(IERC4626.withdraw.selector)), golemIn[2]);
        _hook(_terms(golemIn[2]), SINGLE, _single(TARGET, 0, _call(IERC20.transfer.selector)), golemIn[2]);
        _hook(_terms(golemIn[2]), SINGLE, _single(TARGET, 0, _call(IERC4626.redeem.selector)), golemIn[2]);
    }

    function test_declining_refusesApprove() public {
        bytes4 sel = IERC20.approve.selector;
        vm.expectRevert(_notAllowed(golemIn[3], 3, sel, OPEN));
        _hook(_terms(golemIn[3]), SINGLE, _single(TARGET, 0, _call(sel)), golemIn[3]);
    }

    function test_terminal_onlySettles() public {
        _hook(_terms(golemIn[4]), SINGLE, _single(TARGET, 0, _call(PhasePositionManager.collect.selector)), golemIn[4]);
        bytes4 sel = IERC4626.withdraw.selector;
        vm.expectRevert(_notAllowed(golemIn[4], 4, sel, CLOSE));
        _hook(_terms(golemIn[4]), SINGLE, _single(TARGET, 0, _call(sel)), golemIn[4]);
    }

    function test_terminal_refusesPlainNativeTransfer() public {
        vm.expectRevert(_notAllowed(golemIn[4], 4, bytes4(0), TRANSFER));
        _hook(_terms(golemIn[4]), SINGLE, _single(TARGET, 1 ether, ""), golemIn[4]);
    }

    // ---------------------------------------------------------------- registration

    function test_revertsForUnregisteredGolem() public {
        address ghost = address(0xD00D);
        vm.expectRevert(abi.encodeWithSelector(GolemPhaseEnforcer.GolemNotRegistered.selector, ghost));
        _hook(_terms(ghost), SINGLE, _single(TARGET, 0, _call(IERC4626.redeem.selector)), ghost);
    }

    function test_revertsForDeregisteredGolem() public {
        vm.prank(OWNER);
        oracle.deregisterGolem(golemIn[4]);
        vm.expectRevert(abi.encodeWithSelector(GolemPhaseEnforcer.GolemNotRegistered.selector, golemIn[4]));
        _hook(_terms(golemIn[4]), SINGLE, _single(TARGET, 0, _call(IERC4626.redeem.selector)), golemIn[4]);
    }

    function test_followsKeyRotation() public {
        address fresh = address(0xF8E5);
        vm.prank(OWNER);
        oracle.rotateGolemKey(golemIn[2], fresh);
        // Delegations naming the old key die; the new key carries the phase.
        vm.expectRevert(abi.encodeWithSelector(GolemPhaseEnforcer.GolemNotRegistered.selector, golemIn[2]));
        _hook(_terms(golemIn[2]), SINGLE, _single(TARGET, 0, _call(IERC20.transfer.selector)), golemIn[2]);
        bytes4 sel = IERC20.approve.selector;
        vm.expectRevert(_notAllowed(fresh, 2, sel, OPEN));
        _hook(_terms(fresh), SINGLE, _single(TARGET, 0, _call(sel)), fresh);
    }

    function test_followsOwnerReset() public {
        bytes4 sel = IERC4626.deposit.selector;
        assertFalse(_ok(golemIn[3], _call(sel)));
        vm.prank(OWNER);
        oracle.resetPhase(golemIn[3], 0, "fed");
        assertTrue(_ok(golemIn[3], _call(sel)));
    }

    // ---------------------------------------------------------------- unclassified calls

    function test_revertsOnUnclassifiedSelector() public {
        bytes4 sel = bytes4(keccak256("launchRocket(uint256)"));
        vm.expectRevert(abi.encodeWithSelector(GolemPhaseEnforcer.UnclassifiedAction.selector, TARGET, sel));
        _hook(_terms(golemIn[0]), SINGLE, _single(TARGET, 0, _call(sel)), golemIn[0]);
    }

    function test_revertsOnShortNonEmptyCalldata() public {
        vm.expectRevert(abi.encodeWithSelector(GolemPhaseEnforcer.UnclassifiedAction.selector, TARGET, bytes4(0)));
        _hook(_terms(golemIn[0]), SINGLE, _single(TARGET, 0, hex"a905"), golemIn[0]);
    }

    function test_revertsOnZeroSelectorWithData() public {
        vm.expectRevert(abi.encodeWithSelector(GolemPhaseEnforcer.UnclassifiedAction.selector, TARGET, bytes4(0)));
        _hook(_terms(golemIn[0]), SINGLE, _single(TARGET, 0, abi.encodePacked(bytes4(0), uint256(5))), golemIn[0]);
    }

    function testFuzz_unknownSelectorIsRefusedInEveryPhase(
        bytes4 sel,
        uint8 phase
    ) public {
        vm.assume(enforcer.actionClassOf(sel) == 0);
        phase = uint8(bound(phase, 0, 4));
        bytes memory callData = _call(sel);
        vm.expectRevert(abi.encodeWithSelector(GolemPhaseEnforcer.UnclassifiedAction.selector, TARGET, sel));
        _hook(_terms(golemIn[phase]), SINGLE, _single(TARGET, 0, callData), golemIn[phase]);
    }

    // ---------------------------------------------------------------- sub-delegation

    function test_subdelegation_allowedWhileThriving() public {
        _hook(_terms(golemIn[0]), SINGLE, _single(TARGET, 0, _call(IERC20.transfer.selector)), REPLICANT);
    }

    function test_subdelegation_refusedFromStable() public {
        bytes4 sel = IERC20.transfer.selector;
        vm.expectRevert(_notAllowed(golemIn[1], 1, sel, TRANSFER | SUB));
        _hook(_terms(golemIn[1]), SINGLE, _single(TARGET, 0, _call(sel)), REPLICANT);
    }

    function testFuzz_matchesModel(
        uint8 phase,
        uint256 entry,
        bool viaReplicant,
        uint96 value
    ) public {
        phase = uint8(bound(phase, 0, 4));
        Entry[] memory t = _table();
        Entry memory e = t[bound(entry, 0, t.length - 1)];
        address golem = golemIn[phase];
        address redeemer = viaReplicant ? REPLICANT : golem;
        uint8 required = e.class | (viaReplicant ? SUB : 0);
        bytes memory callData = e.selector == bytes4(0) ? bytes("") : _call(e.selector);
        if (required & _defaultMask(phase) != required) {
            vm.expectRevert(_notAllowed(golem, phase, e.selector, required));
        }
        _hook(_terms(golem), SINGLE, _single(TARGET, value, callData), redeemer);
    }

    // ---------------------------------------------------------------- per-delegation masks

    function test_customMasks_overrideDefaults() public {
        // Terminal may also move runway (TRANSFER) for this delegation; Thriving may only close.
        bytes memory terms = abi.encodePacked(golemIn[4], bytes5(0x0217161614));
        _hook(terms, SINGLE, _single(TARGET, 0, _call(IERC20.transfer.selector)), golemIn[4]);

        bytes memory strict = abi.encodePacked(golemIn[0], bytes5(0x0217161610));
        bytes4 sel = IERC4626.deposit.selector;
        vm.expectRevert(_notAllowed(golemIn[0], 0, sel, OPEN));
        _hook(strict, SINGLE, _single(TARGET, 0, _call(sel)), golemIn[0]);
        _hook(strict, SINGLE, _single(TARGET, 0, _call(IERC4626.withdraw.selector)), golemIn[0]);
    }

    function testFuzz_customMasks(
        bytes5 masks,
        uint8 phase,
        uint256 entry,
        bool viaReplicant
    ) public {
        phase = uint8(bound(phase, 0, 4));
        Entry[] memory t = _table();
        Entry memory e = t[bound(entry, 0, t.length - 1)];
        address golem = golemIn[phase];
        uint8 required = e.class | (viaReplicant ? SUB : 0);
        uint8 mask = uint8(masks[phase]);
        bytes memory callData = e.selector == bytes4(0) ? bytes("") : _call(e.selector);
        bool ok = _passes(
            ICaveatEnforcer(address(enforcer)),
            abi.encodePacked(golem, masks),
            SINGLE,
            _single(TARGET, 0, callData),
            viaReplicant ? REPLICANT : golem
        );
        assertEq(ok, required & mask == required);
    }

    // ---------------------------------------------------------------- terms

    function test_getTermsInfo_defaultsAndCustom() public view {
        (address g, bytes5 m, uint64 start, uint64 end) = enforcer.getTermsInfo(_terms(golemIn[1]));
        assertEq(g, golemIn[1]);
        assertEq(bytes32(m), bytes32(bytes5(0x1F17161610)));
        assertEq(uint256(start), 0, "no window starts at 0");
        assertEq(uint256(end), type(uint64).max, "no window never ends");
        (g, m, start, end) = enforcer.getTermsInfo(abi.encodePacked(golemIn[2], bytes5(0x0102030405)));
        assertEq(g, golemIn[2]);
        assertEq(bytes32(m), bytes32(bytes5(0x0102030405)));
        assertEq(uint256(start), 0);
        assertEq(uint256(end), type(uint64).max);
    }

    function testFuzz_invalidTermsLength(
        bytes calldata terms
    ) public {
        vm.assume(terms.length != 20 && terms.length != 25 && terms.length != 32 && terms.length != 36 && terms.length != 41);
        vm.expectRevert(abi.encodeWithSelector(GolemPhaseEnforcer.InvalidTermsLength.selector, terms.length));
        enforcer.getTermsInfo(terms);
        vm.expectRevert(abi.encodeWithSelector(GolemPhaseEnforcer.InvalidTermsLength.selector, terms.length));
        _hook(terms, SINGLE, _single(TARGET, 0, _call(IERC20.transfer.selector)), golemIn[0]);
        vm.expectRevert(abi.encodeWithSelector(GolemPhaseEnforcer.InvalidTermsLength.selector, terms.length));
        enforcer.allowedClasses(terms);
        vm.expectRevert(abi.encodeWithSelector(GolemPhaseEnforcer.InvalidTermsLength.selector, terms.length));
        enforcer.timeRemaining(terms);
    }

    function test_invalidTermsLength_neighboursOfEveryValidLength() public {
        uint256[10] memory lengths = [uint256(19), 21, 24, 26, 31, 33, 35, 37, 40, 42];
        for (uint256 i; i < lengths.length; ++i) {
            vm.expectRevert(abi.encodeWithSelector(GolemPhaseEnforcer.InvalidTermsLength.selector, lengths[i]));
            enforcer.getTermsInfo(new bytes(lengths[i]));
        }
    }

    function test_abiEncodedAddress_isRefused() public {
        // abi.encode(address) is 32 bytes, so it reads as runway terms naming the address in its first 20
        // bytes: 12 zero bytes and the start of the Golem's, which is not the Golem and is not registered.
        vm.expectRevert(abi.encodeWithSelector(GolemPhaseEnforcer.GolemNotRegistered.selector, address(0)));
        _hook(abi.encode(golemIn[0]), SINGLE, _single(TARGET, 0, _call(IERC20.transfer.selector)), golemIn[0]);
    }

    function test_allowedClasses() public {
        (bool registered, uint8 phase, uint8 mask) = enforcer.allowedClasses(_terms(golemIn[2]));
        assertTrue(registered);
        assertEq(uint256(phase), 2);
        assertEq(uint256(mask), 0x16);
        (registered, phase, mask) = enforcer.allowedClasses(abi.encodePacked(golemIn[3], bytes5(0x0000000A00)));
        assertEq(uint256(mask), 0x0A);
        vm.prank(OWNER);
        oracle.deregisterGolem(golemIn[3]);
        (registered, phase, mask) = enforcer.allowedClasses(_terms(golemIn[3]));
        assertFalse(registered);
        assertEq(uint256(phase), 3);
        assertEq(uint256(mask), 0);
    }

    // ---------------------------------------------------------------- life window (36 and 41 bytes)

    uint64 internal constant START = 1_700_000_000;
    uint64 internal constant END = START + 30 days;

    function _windowed(
        address golem,
        uint64 start,
        uint64 end
    ) internal pure returns (bytes memory) {
        return abi.encodePacked(golem, start, end);
    }

    function _windowed(
        address golem,
        bytes5 masks,
        uint64 start,
        uint64 end
    ) internal pure returns (bytes memory) {
        return abi.encodePacked(golem, masks, start, end);
    }

    function _transfer() internal pure returns (bytes memory) {
        return _single(TARGET, 0, _call(IERC20.transfer.selector));
    }

    function _notYet(
        uint256 current,
        uint256 start
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(GolemPhaseEnforcer.DelegationNotYetActive.selector, current, start);
    }

    function _expired(
        uint256 current,
        uint256 end
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(GolemPhaseEnforcer.DelegationExpired.selector, current, end);
    }

    function _invalidWindow(
        uint256 start,
        uint256 end
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(GolemPhaseEnforcer.InvalidWindow.selector, start, end);
    }

    function test_getTermsInfo_window36() public view {
        bytes memory terms = _windowed(golemIn[1], START, END);
        assertEq(terms.length, 36);
        (address g, bytes5 m, uint64 start, uint64 end) = enforcer.getTermsInfo(terms);
        assertEq(g, golemIn[1]);
        assertEq(bytes32(m), bytes32(bytes5(0x1F17161610)), "36 bytes keep the default masks");
        assertEq(uint256(start), START);
        assertEq(uint256(end), END);
    }

    function test_getTermsInfo_window41() public view {
        bytes memory terms = _windowed(golemIn[2], bytes5(0x0102030405), START, END);
        assertEq(terms.length, 41);
        (address g, bytes5 m, uint64 start, uint64 end) = enforcer.getTermsInfo(terms);
        assertEq(g, golemIn[2]);
        assertEq(bytes32(m), bytes32(bytes5(0x0102030405)));
        assertEq(uint256(start), START);
        assertEq(uint256(end), END);
    }

    function testFuzz_getTermsInfo_readsWhatWasPacked(
        address golem,
        bytes5 masks,
        uint64 start,
        uint64 end,
        bool withMasks
    ) public view {
        vm.assume(start <= end);
        bytes memory terms = withMasks ? _windowed(golem, masks, start, end) : _windowed(golem, start, end);
        (address g, bytes5 m, uint64 s, uint64 e) = enforcer.getTermsInfo(terms);
        assertEq(g, golem);
        assertEq(bytes32(m), bytes32(withMasks ? masks : bytes5(0x1F17161610)));
        assertEq(uint256(s), start);
        assertEq(uint256(e), end);
    }

    function test_window36_passesInsideIncludingBothEdges() public {
        bytes memory terms = _windowed(golemIn[0], START, END);
        vm.warp(START);
        _hook(terms, SINGLE, _transfer(), golemIn[0]);
        vm.warp(START + 1 days);
        _hook(terms, SINGLE, _transfer(), golemIn[0]);
        vm.warp(END);
        _hook(terms, SINGLE, _transfer(), golemIn[0]);
    }

    function test_window36_revertsBeforeStart() public {
        vm.warp(START - 1);
        vm.expectRevert(_notYet(START - 1, START));
        _hook(_windowed(golemIn[0], START, END), SINGLE, _transfer(), golemIn[0]);
    }

    function test_window36_revertsAfterEnd() public {
        vm.warp(END + 1);
        vm.expectRevert(_expired(END + 1, END));
        _hook(_windowed(golemIn[0], START, END), SINGLE, _transfer(), golemIn[0]);
    }

    function test_window41_revertsBeforeStartAndAfterEnd() public {
        bytes memory terms = _windowed(golemIn[0], bytes5(0x1F1F1F1F1F), START, END);
        vm.warp(START - 1);
        vm.expectRevert(_notYet(START - 1, START));
        _hook(terms, SINGLE, _transfer(), golemIn[0]);
        vm.warp(END + 1);
        vm.expectRevert(_expired(END + 1, END));
        _hook(terms, SINGLE, _transfer(), golemIn[0]);
    }

    function test_window41_masksStillApplyInsideTheWindow() public {
        // Terminal may move runway for this delegation, but only until END.
        bytes memory terms = _windowed(golemIn[4], bytes5(0x0217161614), START, END);
        vm.warp(END);
        _hook(terms, SINGLE, _transfer(), golemIn[4]);
        bytes4 sel = IERC4626.withdraw.selector;
        vm.expectRevert(_notAllowed(golemIn[4], 4, sel, CLOSE));
        _hook(terms, SINGLE, _single(TARGET, 0, _call(sel)), golemIn[4]);
        vm.warp(END + 1);
        vm.expectRevert(_expired(END + 1, END));
        _hook(terms, SINGLE, _transfer(), golemIn[4]);
    }

    function test_window_revertsOnInvertedWindow() public {
        vm.expectRevert(_invalidWindow(END, START));
        enforcer.getTermsInfo(_windowed(golemIn[0], END, START));
        vm.expectRevert(_invalidWindow(END, START));
        enforcer.getTermsInfo(_windowed(golemIn[0], bytes5(0x1F17161610), END, START));
        vm.warp(START + 1);
        vm.expectRevert(_invalidWindow(START + 1, START));
        _hook(_windowed(golemIn[0], START + 1, START), SINGLE, _transfer(), golemIn[0]);
        vm.expectRevert(_invalidWindow(START + 1, START));
        _hook(_windowed(golemIn[0], bytes5(0x1F17161610), START + 1, START), SINGLE, _transfer(), golemIn[0]);
        vm.expectRevert(_invalidWindow(END, START));
        enforcer.allowedClasses(_windowed(golemIn[0], END, START));
        vm.expectRevert(_invalidWindow(END, START));
        enforcer.timeRemaining(_windowed(golemIn[0], END, START));
    }

    function test_window_oneSecondWindowIsValidForThatSecondOnly() public {
        bytes memory terms = _windowed(golemIn[0], START, START);
        vm.warp(START - 1);
        vm.expectRevert(_notYet(START - 1, START));
        _hook(terms, SINGLE, _transfer(), golemIn[0]);
        vm.warp(START);
        _hook(terms, SINGLE, _transfer(), golemIn[0]);
        vm.warp(START + 1);
        vm.expectRevert(_expired(START + 1, START));
        _hook(terms, SINGLE, _transfer(), golemIn[0]);
    }

    function test_window_isCheckedBeforeTheOracle() public {
        GolemPhaseEnforcer e = new GolemPhaseEnforcer(address(new PhaseUnreachableOracle()), ADMIN);
        address ghost = address(0xD00D);
        vm.warp(END + 1);
        vm.expectRevert(_expired(END + 1, END));
        _before(ICaveatEnforcer(address(e)), _windowed(ghost, START, END), SINGLE, _transfer(), ghost);
        vm.warp(START - 1);
        vm.expectRevert(_notYet(START - 1, START));
        _before(ICaveatEnforcer(address(e)), _windowed(ghost, START, END), SINGLE, _transfer(), ghost);
        // Inside the window the oracle is read (and here it fails).
        vm.warp(START);
        vm.expectRevert(PhaseUnreachableOracle.OracleCalled.selector);
        _before(ICaveatEnforcer(address(e)), _windowed(ghost, START, END), SINGLE, _transfer(), ghost);
    }

    function test_window_deadGolemInsideTheWindowIsStillRefused() public {
        vm.prank(OWNER);
        oracle.deregisterGolem(golemIn[0]);
        vm.warp(START);
        vm.expectRevert(abi.encodeWithSelector(GolemPhaseEnforcer.GolemNotRegistered.selector, golemIn[0]));
        _hook(_windowed(golemIn[0], START, END), SINGLE, _transfer(), golemIn[0]);
    }

    function test_window_gatesBatchAndSubdelegation() public {
        Execution[] memory ex = new Execution[](2);
        ex[0] = _exec(TARGET, _call(IERC20.transfer.selector));
        ex[1] = Execution(TARGET, 1 ether, "");
        bytes memory terms = _windowed(golemIn[0], START, END);
        vm.warp(END);
        _hook(terms, BATCH, _batch(ex), golemIn[0]);
        _hook(terms, SINGLE, _transfer(), REPLICANT);
        vm.warp(END + 1);
        vm.expectRevert(_expired(END + 1, END));
        _hook(terms, BATCH, _batch(ex), golemIn[0]);
        vm.expectRevert(_expired(END + 1, END));
        _hook(terms, SINGLE, _transfer(), REPLICANT);
    }

    function testFuzz_noWindowNeverExpires(
        uint64 now_,
        bool withMasks
    ) public {
        vm.warp(now_);
        bytes memory terms = withMasks ? abi.encodePacked(golemIn[0], bytes5(0x1F17161610)) : _terms(golemIn[0]);
        _hook(terms, SINGLE, _transfer(), golemIn[0]);
    }

    /// Any window, any time: the hook refuses exactly as MortalityTimeWindowEnforcer would, first.
    function testFuzz_windowModel(
        uint64 start,
        uint64 end,
        uint64 now_,
        bool withMasks
    ) public {
        vm.warp(now_);
        bytes memory terms =
            withMasks ? _windowed(golemIn[0], bytes5(0x1F17161610), start, end) : _windowed(golemIn[0], start, end);
        if (start > end) vm.expectRevert(_invalidWindow(start, end));
        else if (now_ < start) vm.expectRevert(_notYet(now_, start));
        else if (now_ > end) vm.expectRevert(_expired(now_, end));
        _hook(terms, SINGLE, _transfer(), golemIn[0]);
    }

    /// Window bounds chosen around the current time so every edge (now - 1, now, now + 1) is reached often.
    function testFuzz_windowEdges(
        uint64 now_,
        int8 startOffset,
        int8 endOffset
    ) public {
        now_ = uint64(bound(now_, 200, type(uint64).max - 200));
        vm.warp(now_);
        uint64 start = uint64(int64(now_) + int64(startOffset % 3));
        uint64 end = uint64(int64(now_) + int64(endOffset % 3));
        bool ok = _passes(ICaveatEnforcer(address(enforcer)), _windowed(golemIn[0], start, end), SINGLE, _transfer(), golemIn[0]);
        assertEq(ok, start <= now_ && now_ <= end);
    }

    /// Window and phase together: a redemption passes iff it is inside the window and the phase allows it.
    function testFuzz_windowAndPhase(
        uint64 start,
        uint64 end,
        uint64 now_,
        uint8 phase,
        uint256 entry,
        bool viaReplicant,
        bytes5 masks
    ) public {
        vm.assume(start <= end);
        vm.warp(now_);
        phase = uint8(bound(phase, 0, 4));
        Entry memory e = _table()[bound(entry, 0, 23)];
        address redeemer = viaReplicant ? REPLICANT : golemIn[phase];
        bool ok = _passesWindowed(_windowed(golemIn[phase], masks, start, end), e.selector, redeemer);
        uint8 required = e.class | (viaReplicant ? SUB : 0);
        assertEq(ok, start <= now_ && now_ <= end && required & uint8(masks[phase]) == required);
    }

    function _passesWindowed(
        bytes memory terms,
        bytes4 selector,
        address redeemer
    ) internal returns (bool) {
        bytes memory callData = selector == bytes4(0) ? bytes("") : _call(selector);
        return _passes(ICaveatEnforcer(address(enforcer)), terms, SINGLE, _single(TARGET, 0, callData), redeemer);
    }

    function test_allowedClasses_isZeroOutsideTheWindow() public {
        bytes memory terms = _windowed(golemIn[2], START, END);
        vm.warp(START - 1);
        (bool registered, uint8 phase, uint8 mask) = enforcer.allowedClasses(terms);
        assertTrue(registered);
        assertEq(uint256(phase), 2);
        assertEq(uint256(mask), 0, "not yet active");
        vm.warp(START);
        (,, mask) = enforcer.allowedClasses(terms);
        assertEq(uint256(mask), 0x16);
        vm.warp(END);
        (,, mask) = enforcer.allowedClasses(terms);
        assertEq(uint256(mask), 0x16);
        vm.warp(END + 1);
        (,, mask) = enforcer.allowedClasses(terms);
        assertEq(uint256(mask), 0, "expired");
        (,, mask) = enforcer.allowedClasses(_windowed(golemIn[3], bytes5(0x0000000A00), START, END + 1));
        assertEq(uint256(mask), 0x0A);
    }

    function test_timeRemaining() public {
        bytes memory terms = _windowed(golemIn[0], START, END);
        vm.warp(START - 100);
        assertEq(enforcer.timeRemaining(terms), END - START + 100, "counts to end before start");
        vm.warp(START + 1 days);
        assertEq(enforcer.timeRemaining(terms), 29 days);
        assertEq(enforcer.timeRemaining(_windowed(golemIn[0], bytes5(0x1F17161610), START, END)), 29 days);
        vm.warp(END);
        assertEq(enforcer.timeRemaining(terms), 0);
        vm.warp(END + 5);
        assertEq(enforcer.timeRemaining(terms), 0);
        // Without a window it counts to NO_END.
        assertEq(enforcer.timeRemaining(_terms(golemIn[0])), uint256(type(uint64).max) - (END + 5));
    }

    function testFuzz_timeRemaining(
        uint64 start,
        uint64 end,
        uint64 now_
    ) public {
        vm.assume(start <= end);
        vm.warp(now_);
        uint256 remaining = enforcer.timeRemaining(_windowed(golemIn[0], start, end));
        assertEq(remaining, now_ >= end ? 0 : uint256(end) - now_);
    }

    // ---------------------------------------------------------------- batch and modes

    function test_batch_allAllowedPasses() public {
        Execution[] memory ex = new Execution[](3);
        ex[0] = _exec(TARGET, _call(IERC4626.withdraw.selector));
        ex[1] = _exec(TARGET, _call(IERC20.transfer.selector));
        ex[2] = Execution(TARGET, 1 ether, "");
        _hook(_terms(golemIn[2]), BATCH, _batch(ex), golemIn[2]);
    }

    function test_batch_oneForbiddenCallBlocksAll() public {
        Execution[] memory ex = new Execution[](3);
        ex[0] = _exec(TARGET, _call(IERC4626.withdraw.selector));
        ex[1] = _exec(TARGET, _call(PhaseSwapRouter02.exactInput.selector));
        ex[2] = _exec(TARGET, _call(IERC20.transfer.selector));
        vm.expectRevert(_notAllowed(golemIn[2], 2, PhaseSwapRouter02.exactInput.selector, OPEN));
        _hook(_terms(golemIn[2]), BATCH, _batch(ex), golemIn[2]);
    }

    function test_batch_unclassifiedCallBlocksAll() public {
        Execution[] memory ex = new Execution[](2);
        ex[0] = _exec(TARGET, _call(IERC20.transfer.selector));
        ex[1] = _exec(address(0xBEEF), hex"deadbeef");
        vm.expectRevert(
            abi.encodeWithSelector(GolemPhaseEnforcer.UnclassifiedAction.selector, address(0xBEEF), bytes4(0xdeadbeef))
        );
        _hook(_terms(golemIn[0]), BATCH, _batch(ex), golemIn[0]);
    }

    function test_batch_subdelegationAppliesToEveryCall() public {
        Execution[] memory ex = new Execution[](1);
        ex[0] = _exec(TARGET, _call(IERC4626.redeem.selector));
        vm.expectRevert(_notAllowed(golemIn[4], 4, IERC4626.redeem.selector, SETTLE | SUB));
        _hook(_terms(golemIn[4]), BATCH, _batch(ex), REPLICANT);
    }

    function test_batch_empty_passesForRegisteredGolem() public {
        _hook(_terms(golemIn[4]), BATCH, _batch(new Execution[](0)), golemIn[4]);
    }

    function testFuzz_batch_failsIffAnyCallFails(
        uint8 phase,
        uint256 seed,
        uint8 count
    ) public {
        phase = uint8(bound(phase, 0, 4));
        count = uint8(bound(count, 1, 6));
        Entry[] memory t = _table();
        Execution[] memory ex = new Execution[](count);
        bool expected = true;
        for (uint256 i; i < count; ++i) {
            Entry memory e = t[uint256(keccak256(abi.encode(seed, i))) % t.length];
            ex[i] = _exec(TARGET, e.selector == bytes4(0) ? bytes("") : _call(e.selector));
            if (e.class & _defaultMask(phase) != e.class) expected = false;
        }
        bool ok = _passes(ICaveatEnforcer(address(enforcer)), _terms(golemIn[phase]), BATCH, _batch(ex), golemIn[phase]);
        assertEq(ok, expected);
    }

    function test_tryMode_isAccepted() public {
        _hook(_terms(golemIn[0]), SINGLE_TRY, _single(TARGET, 0, _call(IERC20.transfer.selector)), golemIn[0]);
    }

    function test_revertsOnDelegatecallMode() public {
        vm.expectRevert(abi.encodeWithSelector(ExecutionLib.UnsupportedCallType.selector, bytes1(0xff)));
        _hook(_terms(golemIn[0]), DELEGATECALL, _single(TARGET, 0, _call(IERC20.transfer.selector)), golemIn[0]);
    }

    function test_revertsOnMalformedSingle() public {
        vm.expectRevert(abi.encodeWithSelector(ExecutionLib.MalformedExecution.selector, uint256(40)));
        _hook(_terms(golemIn[0]), SINGLE, new bytes(40), golemIn[0]);
    }

    function test_otherHooksAreNoops() public {
        // Only beforeHook checks; the other hooks never revert even for a dead Golem.
        address ghost = address(0xD00D);
        bytes memory ex = _single(TARGET, 0, _call(IERC20.approve.selector));
        vm.startPrank(MANAGER);
        ICaveatEnforcer(address(enforcer)).beforeAllHook(_terms(ghost), "", SINGLE, ex, HASH, DELEGATOR, ghost);
        ICaveatEnforcer(address(enforcer)).afterHook(_terms(ghost), "", SINGLE, ex, HASH, DELEGATOR, ghost);
        ICaveatEnforcer(address(enforcer)).afterAllHook(_terms(ghost), "", SINGLE, ex, HASH, DELEGATOR, ghost);
        vm.stopPrank();
    }

    function test_phaseOutOfRangeFromFaultyOracleAllowsNothing() public {
        PhaseRiggedOracle rigged = new PhaseRiggedOracle();
        GolemPhaseEnforcer e = new GolemPhaseEnforcer(address(rigged), ADMIN);
        rigged.set(true, 7);
        bytes4 sel = IERC4626.redeem.selector;
        vm.expectRevert(_notAllowed(golemIn[0], 7, sel, SETTLE));
        _before(ICaveatEnforcer(address(e)), _terms(golemIn[0]), SINGLE, _single(TARGET, 0, _call(sel)), golemIn[0]);
        (, uint8 phase, uint8 mask) = e.allowedClasses(_terms(golemIn[0]));
        assertEq(uint256(phase), 7);
        assertEq(uint256(mask), 0);
    }

    // ---------------------------------------------------------------- admin

    function test_setActionClass_reclassifiesWithoutRedeploy() public {
        bytes4 sel = bytes4(keccak256("harvest()"));
        vm.expectEmit(true, true, true, true);
        emit GolemPhaseEnforcer.ActionClassSet(sel, SETTLE);
        vm.prank(ADMIN);
        enforcer.setActionClass(sel, SETTLE);
        assertEq(uint256(enforcer.actionClassOf(sel)), SETTLE);
        _hook(_terms(golemIn[4]), SINGLE, _single(TARGET, 0, abi.encodePacked(sel)), golemIn[4]);

        // Tighten approve to OPEN|CLOSE: now nothing but Thriving/Stable may approve.
        vm.prank(ADMIN);
        enforcer.setActionClass(IERC20.approve.selector, OPEN | CLOSE);
        assertTrue(_ok(golemIn[1], _call(IERC20.approve.selector)));
        assertFalse(_ok(golemIn[2], _call(IERC20.approve.selector)));
    }

    function test_setActionClass_zeroUnclassifies() public {
        vm.prank(ADMIN);
        enforcer.setActionClass(IERC20.transfer.selector, 0);
        vm.expectRevert(abi.encodeWithSelector(GolemPhaseEnforcer.UnclassifiedAction.selector, TARGET, IERC20.transfer.selector));
        _hook(_terms(golemIn[0]), SINGLE, _single(TARGET, 0, _call(IERC20.transfer.selector)), golemIn[0]);
    }

    function test_setActionClass_emptyCalldataKey() public {
        vm.prank(ADMIN);
        enforcer.setActionClass(bytes4(0), SETTLE);
        _hook(_terms(golemIn[4]), SINGLE, _single(TARGET, 1 ether, ""), golemIn[4]);
    }

    function test_setActionClass_revertsForNonAdmin() public {
        vm.expectRevert(abi.encodeWithSelector(Ownable2Step.NotOwner.selector, OWNER));
        vm.prank(OWNER);
        enforcer.setActionClass(IERC20.approve.selector, SETTLE);
    }

    function testFuzz_setActionClass_rejectsUnknownBits(
        uint8 mask
    ) public {
        vm.prank(ADMIN);
        if (mask > 0x1F) vm.expectRevert(abi.encodeWithSelector(GolemPhaseEnforcer.InvalidClassMask.selector, mask));
        enforcer.setActionClass(0x12345678, mask);
        if (mask <= 0x1F) assertEq(uint256(enforcer.actionClassOf(0x12345678)), mask);
    }

    function test_transferOwnership_movesTheTableOnlyOnAcceptance() public {
        address next = address(0xAE);
        vm.expectEmit(true, true, true, true);
        emit Ownable2Step.OwnershipTransferStarted(ADMIN, next);
        vm.prank(ADMIN);
        enforcer.transferOwnership(next);
        assertEq(enforcer.owner(), ADMIN);
        vm.prank(ADMIN); // still the table's owner until next accepts
        enforcer.setActionClass(0x12345678, OPEN);

        vm.expectEmit(true, true, true, true);
        emit Ownable2Step.OwnershipTransferred(ADMIN, next);
        vm.prank(next);
        enforcer.acceptOwnership();
        assertEq(enforcer.owner(), next);
        vm.expectRevert(abi.encodeWithSelector(Ownable2Step.NotOwner.selector, ADMIN));
        vm.prank(ADMIN);
        enforcer.setActionClass(0x12345678, OPEN);
        vm.prank(next);
        enforcer.setActionClass(0x12345678, CLOSE);
    }

    function test_transferOwnership_revertsForNonOwner() public {
        vm.expectRevert(abi.encodeWithSelector(Ownable2Step.NotOwner.selector, OWNER));
        vm.prank(OWNER);
        enforcer.transferOwnership(OWNER);
    }

    // ---------------------------------------------------------------- protected targets

    function _protected(
        address target,
        bytes4 selector
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(GolemPhaseEnforcer.ProtectedTarget.selector, target, selector, DELEGATOR, MANAGER);
    }

    /// enableDelegation is SUBDELEGATION in the table and Thriving allows it, but sent to the manager it
    /// would re-enable a delegation the owner disabled: refused whatever the table says.
    function test_protectedTarget_enableDelegationOnTheManager() public {
        bytes4 sel = PhaseDelegationManager.enableDelegation.selector;
        vm.expectRevert(_protected(MANAGER, sel));
        _hook(_terms(golemIn[0]), SINGLE, _single(MANAGER, 0, _call(sel)), golemIn[0]);
    }

    /// The owner's DeleGator exposes enableDelegation too (it calls the manager as itself).
    function test_protectedTarget_enableDelegationOnTheDelegator() public {
        bytes4 sel = PhaseDelegationManager.enableDelegation.selector;
        vm.expectRevert(_protected(DELEGATOR, sel));
        _hook(_terms(golemIn[0]), SINGLE, _single(DELEGATOR, 0, _call(sel)), golemIn[0]);
    }

    /// Even a call the admin classified for every phase, and a plain native transfer, are refused there.
    function test_protectedTarget_refusedEvenWhenTheTableAllowsEverything() public {
        vm.prank(ADMIN);
        enforcer.setActionClass(IERC20.transfer.selector, TRANSFER);
        bytes memory terms = abi.encodePacked(golemIn[0], bytes5(0x1F1F1F1F1F));
        vm.expectRevert(_protected(DELEGATOR, IERC20.transfer.selector));
        _hook(terms, SINGLE, _single(DELEGATOR, 0, _call(IERC20.transfer.selector)), golemIn[0]);
        vm.expectRevert(_protected(MANAGER, bytes4(0)));
        _hook(terms, SINGLE, _single(MANAGER, 1 ether, ""), golemIn[0]);
    }

    /// One protected call anywhere in a batch refuses the whole batch.
    function test_protectedTarget_insideABatch() public {
        bytes4 sel = PhaseDelegationManager.disableDelegation.selector;
        Execution[] memory ex = new Execution[](3);
        ex[0] = _exec(TARGET, _call(IERC20.transfer.selector));
        ex[1] = _exec(TARGET, _call(IERC4626.deposit.selector));
        ex[2] = _exec(MANAGER, _call(sel));
        vm.expectRevert(_protected(MANAGER, sel));
        _hook(_terms(golemIn[0]), BATCH, _batch(ex), golemIn[0]);
    }

    /// The same calls to any other target still pass in Thriving (the rule is about the target only).
    function test_protectedTarget_otherTargetsUnaffected() public {
        _hook(_terms(golemIn[0]), SINGLE, _single(TARGET, 0, _call(PhaseDelegationManager.enableDelegation.selector)), golemIn[0]);
        _hook(_terms(golemIn[0]), SINGLE, _single(TARGET, 1 ether, ""), golemIn[0]);
    }

    /// Any selector, any phase, any redeemer, single or batch, through any terms: a call to the delegator
    /// or the manager never passes, and the error names the target and both protected addresses.
    function testFuzz_protectedTargetNeverPasses(
        bytes4 sel,
        uint8 phase,
        bool toManager,
        bool viaReplicant,
        bool asBatch,
        bytes5 masks
    ) public {
        phase = uint8(bound(phase, 0, 4));
        if (sel != bytes4(0)) {
            vm.prank(ADMIN);
            enforcer.setActionClass(sel, (uint8(uint32(sel)) & 0x1F) | 0x01);
        }
        address target = toManager ? MANAGER : DELEGATOR;
        bytes memory callData = sel == bytes4(0) ? bytes("") : abi.encodePacked(sel, uint256(7));
        bytes memory terms = abi.encodePacked(golemIn[phase], masks | bytes5(0x1F1F1F1F1F));
        address redeemer = viaReplicant ? REPLICANT : golemIn[phase];
        bytes memory execution;
        bytes32 mode = SINGLE;
        if (asBatch) {
            Execution[] memory ex = new Execution[](2);
            ex[0] = _exec(TARGET, "");
            ex[1] = _exec(target, callData);
            execution = _batch(ex);
            mode = BATCH;
        } else {
            execution = _single(target, 0, callData);
        }
        vm.expectRevert(_protected(target, sel));
        _hook(terms, mode, execution, redeemer);
    }

    /// The rule reads the hook's own arguments: the manager is whoever calls the hook, the delegator is
    /// the delegation's, so a second manager or another owner is protected the same way.
    function testFuzz_protectedTargetFollowsTheCallerAndTheDelegator(
        address manager,
        address delegator
    ) public {
        vm.assume(manager != TARGET && delegator != TARGET && manager != address(0) && delegator != address(0));
        bytes memory ex = _single(delegator, 0, _call(IERC20.transfer.selector));
        vm.prank(manager);
        vm.expectRevert(
            abi.encodeWithSelector(
                GolemPhaseEnforcer.ProtectedTarget.selector, delegator, IERC20.transfer.selector, delegator, manager
            )
        );
        ICaveatEnforcer(address(enforcer)).beforeHook(_terms(golemIn[0]), "", SINGLE, ex, HASH, delegator, golemIn[0]);
        ex = _single(manager, 0, _call(IERC20.transfer.selector));
        vm.prank(manager);
        vm.expectRevert(
            abi.encodeWithSelector(
                GolemPhaseEnforcer.ProtectedTarget.selector, manager, IERC20.transfer.selector, delegator, manager
            )
        );
        ICaveatEnforcer(address(enforcer)).beforeHook(_terms(golemIn[0]), "", SINGLE, ex, HASH, delegator, golemIn[0]);
    }

    // ---------------------------------------------------------------- gas

    event log_named_uint(string key, uint256 val);

    /// Logs the hook's own cost (forge test -vv): one oracle staticcall plus one table SLOAD per call.
    function test_gas_beforeHook() public {
        bytes memory terms = _terms(golemIn[2]);
        bytes memory single = _single(TARGET, 0, _call(IERC20.transfer.selector));
        Execution[] memory ex = new Execution[](3);
        ex[0] = _exec(TARGET, _call(IERC4626.withdraw.selector));
        ex[1] = _exec(TARGET, _call(IERC20.transfer.selector));
        ex[2] = _exec(TARGET, _call(IERC4626.redeem.selector));
        bytes memory batch = _batch(ex);

        vm.prank(MANAGER);
        uint256 g = gasleft();
        ICaveatEnforcer(address(enforcer)).beforeHook(terms, "", SINGLE, single, HASH, DELEGATOR, golemIn[2]);
        emit log_named_uint("GolemPhase.beforeHook single (cold)", g - gasleft());

        vm.prank(MANAGER);
        g = gasleft();
        ICaveatEnforcer(address(enforcer)).beforeHook(terms, "", BATCH, batch, HASH, DELEGATOR, golemIn[2]);
        emit log_named_uint("GolemPhase.beforeHook batch of 3 (warm oracle)", g - gasleft());

        vm.warp(START + 1);
        bytes memory windowed = _windowed(golemIn[1], START, END);
        vm.prank(MANAGER);
        g = gasleft();
        ICaveatEnforcer(address(enforcer)).beforeHook(windowed, "", SINGLE, single, HASH, DELEGATOR, golemIn[1]);
        emit log_named_uint("GolemPhase.beforeHook single with window (other golem)", g - gasleft());
    }

    // ---------------------------------------------------------------- runway terms (32 bytes)

    uint256 internal constant RUNWAY_START = 1_700_000_000;
    uint256 internal constant RUNWAY_END = RUNWAY_START + 365 days;

    function _runway(
        address golem,
        uint256 start,
        uint256 end
    ) internal pure returns (bytes memory) {
        return abi.encodePacked(golem, uint48(start), uint48(end));
    }

    function _runwayPasses(
        address golem,
        bytes32 mode,
        bytes memory execution,
        address redeemer
    ) internal returns (bool) {
        return _passes(ICaveatEnforcer(address(enforcer)), _runway(golem, RUNWAY_START, RUNWAY_END), mode, execution, redeemer);
    }

    function test_runway_getTermsInfo() public view {
        (address g, bytes5 m, uint64 start, uint64 end) = enforcer.getTermsInfo(_runway(golemIn[3], RUNWAY_START, RUNWAY_END));
        assertEq(g, golemIn[3]);
        assertEq(bytes32(m), bytes32(bytes5(0x0C04040400)), "transfers only, none in Terminal");
        assertEq(uint256(start), RUNWAY_START);
        assertEq(uint256(end), RUNWAY_END);
        (,, start, end) = enforcer.getTermsInfo(_runway(golemIn[3], type(uint48).max, type(uint48).max));
        assertEq(uint256(start), type(uint48).max);
        assertEq(uint256(end), type(uint48).max);
    }

    function test_runway_getTermsInfo_refusesAnInvertedWindow() public {
        vm.expectRevert(abi.encodeWithSelector(GolemPhaseEnforcer.InvalidWindow.selector, uint256(11), uint256(10)));
        enforcer.getTermsInfo(_runway(golemIn[0], 11, 10));
    }

    function test_runway_transfersPassFromThrivingToDeclining() public {
        vm.warp(RUNWAY_START);
        for (uint8 p; p < 4; ++p) {
            assertTrue(_runwayPasses(golemIn[p], SINGLE, _transfer(), golemIn[p]), "ERC-20 transfer");
            assertTrue(_runwayPasses(golemIn[p], SINGLE, _single(TARGET, 1 ether, ""), golemIn[p]), "native transfer");
            assertTrue(_runwayPasses(golemIn[p], SINGLE_TRY, _transfer(), golemIn[p]), "try mode");
        }
    }

    function test_runway_terminalTransfersNothing() public {
        vm.warp(RUNWAY_START);
        vm.expectRevert(
            abi.encodeWithSelector(
                GolemPhaseEnforcer.ActionNotAllowedInPhase.selector, golemIn[4], uint8(4), IERC20.transfer.selector, TRANSFER
            )
        );
        _hook(_runway(golemIn[4], RUNWAY_START, RUNWAY_END), SINGLE, _transfer(), golemIn[4]);
        assertFalse(_runwayPasses(golemIn[4], SINGLE, _single(TARGET, 1, ""), golemIn[4]), "native transfer");
    }

    function test_runway_subdelegatedOnlyWhileThriving() public {
        vm.warp(RUNWAY_START);
        assertTrue(_runwayPasses(golemIn[0], SINGLE, _transfer(), REPLICANT));
        vm.expectRevert(
            abi.encodeWithSelector(
                GolemPhaseEnforcer.ActionNotAllowedInPhase.selector,
                golemIn[1],
                uint8(1),
                IERC20.transfer.selector,
                TRANSFER | SUB
            )
        );
        _hook(_runway(golemIn[1], RUNWAY_START, RUNWAY_END), SINGLE, _transfer(), REPLICANT);
    }

    function test_runway_refusesEverythingButATransfer() public {
        vm.warp(RUNWAY_START);
        bytes memory terms = _runway(golemIn[0], RUNWAY_START, RUNWAY_END);
        bytes4[5] memory others =
            [IERC20.approve.selector, IERC20.transferFrom.selector, IERC4626.redeem.selector, bytes4(0xdeadbeef), bytes4(0)];
        for (uint256 i; i < others.length; ++i) {
            vm.expectRevert(abi.encodeWithSelector(GolemPhaseEnforcer.NotARunwayTransfer.selector, TARGET, others[i]));
            _hook(terms, SINGLE, _single(TARGET, 0, _call(others[i])), golemIn[0]);
        }
        // One to three bytes of calldata are neither empty nor a selector.
        vm.expectRevert(abi.encodeWithSelector(GolemPhaseEnforcer.NotARunwayTransfer.selector, TARGET, bytes4(0)));
        _hook(terms, SINGLE, _single(TARGET, 0, hex"a9059c"), golemIn[0]);
        // A batch is refused even when every call is a transfer.
        Execution[] memory ex = new Execution[](1);
        ex[0] = _exec(TARGET, _call(IERC20.transfer.selector));
        vm.expectRevert(abi.encodeWithSelector(ExecutionLib.UnsupportedCallType.selector, bytes1(0x01)));
        _hook(terms, BATCH, _batch(ex), golemIn[0]);
        vm.expectRevert(abi.encodeWithSelector(ExecutionLib.UnsupportedCallType.selector, bytes1(0xff)));
        _hook(terms, DELEGATECALL, _transfer(), golemIn[0]);
        vm.expectRevert(abi.encodeWithSelector(ExecutionLib.MalformedExecution.selector, uint256(51)));
        _hook(terms, SINGLE, new bytes(51), golemIn[0]);
    }

    function test_runway_windowEdgesAreInclusive() public {
        bytes memory terms = _runway(golemIn[1], RUNWAY_START, RUNWAY_END);
        vm.warp(RUNWAY_START - 1);
        vm.expectRevert(_notYet(RUNWAY_START - 1, RUNWAY_START));
        _hook(terms, SINGLE, _transfer(), golemIn[1]);
        vm.warp(RUNWAY_START);
        _hook(terms, SINGLE, _transfer(), golemIn[1]);
        vm.warp(RUNWAY_END);
        _hook(terms, SINGLE, _transfer(), golemIn[1]);
        vm.warp(RUNWAY_END + 1);
        vm.expectRevert(abi.encodeWithSelector(GolemPhaseEnforcer.DelegationExpired.selector, RUNWAY_END + 1, RUNWAY_END));
        _hook(terms, SINGLE, _transfer(), golemIn[1]);
    }

    function test_runway_invertedWindowRefusesAtEveryInstant() public {
        bytes memory terms = _runway(golemIn[0], 100, 99);
        uint256[3] memory instants = [uint256(98), 99, 100];
        for (uint256 i; i < instants.length; ++i) {
            vm.warp(instants[i]);
            assertFalse(_passes(ICaveatEnforcer(address(enforcer)), terms, SINGLE, _transfer(), golemIn[0]));
        }
    }

    function test_runway_windowIsCheckedBeforeTheOracle() public {
        GolemPhaseEnforcer e = new GolemPhaseEnforcer(address(new PhaseUnreachableOracle()), ADMIN);
        vm.warp(RUNWAY_END + 1);
        vm.expectRevert(abi.encodeWithSelector(GolemPhaseEnforcer.DelegationExpired.selector, RUNWAY_END + 1, RUNWAY_END));
        _before(ICaveatEnforcer(address(e)), _runway(golemIn[0], RUNWAY_START, RUNWAY_END), SINGLE, _transfer(), golemIn[0]);
        vm.warp(RUNWAY_START);
        vm.expectRevert(PhaseUnreachableOracle.OracleCalled.selector);
        _before(ICaveatEnforcer(address(e)), _runway(golemIn[0], RUNWAY_START, RUNWAY_END), SINGLE, _transfer(), golemIn[0]);
    }

    function test_runway_unregisteredAndDeadAreRefused() public {
        vm.warp(RUNWAY_START);
        address stranger = address(0xBEEF);
        vm.expectRevert(abi.encodeWithSelector(GolemPhaseEnforcer.GolemNotRegistered.selector, stranger));
        _hook(_runway(stranger, RUNWAY_START, RUNWAY_END), SINGLE, _transfer(), stranger);
        vm.prank(OWNER);
        oracle.deregisterGolem(golemIn[0]);
        vm.expectRevert(abi.encodeWithSelector(GolemPhaseEnforcer.GolemNotRegistered.selector, golemIn[0]));
        _hook(_runway(golemIn[0], RUNWAY_START, RUNWAY_END), SINGLE, _transfer(), golemIn[0]);
    }

    function test_runway_protectedTargetsAreRefused() public {
        vm.warp(RUNWAY_START);
        bytes memory terms = _runway(golemIn[0], RUNWAY_START, RUNWAY_END);
        vm.expectRevert(
            abi.encodeWithSelector(
                GolemPhaseEnforcer.ProtectedTarget.selector, DELEGATOR, IERC20.transfer.selector, DELEGATOR, MANAGER
            )
        );
        _hook(terms, SINGLE, _single(DELEGATOR, 0, _call(IERC20.transfer.selector)), golemIn[0]);
        vm.expectRevert(
            abi.encodeWithSelector(GolemPhaseEnforcer.ProtectedTarget.selector, MANAGER, bytes4(0), DELEGATOR, MANAGER)
        );
        _hook(terms, SINGLE, _single(MANAGER, 1, ""), golemIn[0]);
    }

    function test_runway_faultyOraclePhaseAllowsNothing() public {
        PhaseRiggedOracle rigged = new PhaseRiggedOracle();
        GolemPhaseEnforcer e = new GolemPhaseEnforcer(address(rigged), ADMIN);
        vm.warp(RUNWAY_START);
        bytes memory terms = _runway(golemIn[0], RUNWAY_START, RUNWAY_END);
        rigged.set(true, 0);
        assertTrue(_passes(ICaveatEnforcer(address(e)), terms, SINGLE, _transfer(), golemIn[0]));
        rigged.set(true, 5);
        assertFalse(_passes(ICaveatEnforcer(address(e)), terms, SINGLE, _transfer(), golemIn[0]));
        rigged.set(true, 255);
        assertFalse(_passes(ICaveatEnforcer(address(e)), terms, SINGLE, _transfer(), golemIn[0]));
        rigged.set(false, 0);
        assertFalse(_passes(ICaveatEnforcer(address(e)), terms, SINGLE, _transfer(), golemIn[0]));
    }

    /// Runway terms pass exactly when the same Golem and window in 36-byte terms pass and the execution is one
    /// plain transfer: they narrow the table's rules, never widen them.
    function testFuzz_runway_narrowsTheTable(
        uint8 phase,
        uint8 actionIndex,
        bool viaReplicant,
        uint32 startOffset,
        uint32 endOffset,
        uint32 nowOffset,
        bool protectedTarget
    ) public {
        address golem = golemIn[phase % 5];
        bytes4[6] memory actions = [
            IERC20.transfer.selector,
            bytes4(0),
            IERC20.approve.selector,
            IERC4626.redeem.selector,
            IERC4626.withdraw.selector,
            bytes4(0xdeadbeef)
        ];
        bytes4 selector = actions[actionIndex % 6];
        bytes memory callData = selector == bytes4(0) ? bytes("") : _call(selector);
        bytes memory execution = _single(protectedTarget ? DELEGATOR : TARGET, 0, callData);
        uint256 start = RUNWAY_START + startOffset;
        uint256 end = RUNWAY_START + endOffset;
        vm.warp(RUNWAY_START + nowOffset);
        address redeemer = viaReplicant ? REPLICANT : golem;
        bool runwayOk = _passes(ICaveatEnforcer(address(enforcer)), _runway(golem, start, end), SINGLE, execution, redeemer);
        bool tableOk = start <= end
            && _passes(
                ICaveatEnforcer(address(enforcer)), _windowed(golem, uint64(start), uint64(end)), SINGLE, execution, redeemer
            );
        bool isTransfer = selector == IERC20.transfer.selector || selector == bytes4(0);
        assertEq(runwayOk, tableOk && isTransfer);
    }

    function testFuzz_runway_anyTimeOutsideTheWindowIsRefused(
        uint48 start,
        uint48 end,
        uint48 current
    ) public {
        vm.warp(current);
        bool ok = _passes(ICaveatEnforcer(address(enforcer)), _runway(golemIn[0], start, end), SINGLE, _transfer(), golemIn[0]);
        assertEq(ok, start <= current && current <= end);
    }

    // ---------------------------------------------------------------- hooks answered by the fallback

    function test_unknownFunctionIsRefused() public {
        (bool ok, bytes memory data) = address(enforcer).call(abi.encodeWithSelector(bytes4(0x12345678), uint256(1)));
        assertFalse(ok);
        assertEq(
            keccak256(data), keccak256(abi.encodeWithSelector(GolemPhaseEnforcer.UnknownFunction.selector, bytes4(0x12345678)))
        );
        (ok,) = address(enforcer).call("");
        assertFalse(ok, "empty calldata");
        vm.deal(address(this), 2);
        (ok,) = address(enforcer).call{ value: 1 }("");
        assertFalse(ok, "plain ETH");
        (ok,) = address(enforcer).call{ value: 1 }(abi.encodeCall(GolemPhaseEnforcer.setActionClass, (bytes4(0x12345678), 1)));
        assertFalse(ok, "a declared function with value");
    }

    function test_malformedHookCallIsRefused() public {
        bytes memory good = abi.encodeCall(
            ICaveatEnforcer.beforeHook, (_terms(golemIn[0]), "", SINGLE, _transfer(), HASH, DELEGATOR, golemIn[0])
        );
        vm.prank(MANAGER);
        (bool ok,) = address(enforcer).call(good);
        assertTrue(ok, "well formed");
        bytes memory bad = _withWord(good, 0, 0xffffffff); // terms offset past the end
        _expectMalformed(bad);
        bad = _withWord(good, 3, 1 << 40); // executionCallData offset out of range
        _expectMalformed(bad);
        bad = _withWord(good, 5, uint256(uint160(DELEGATOR)) | (1 << 160)); // dirty delegator
        _expectMalformed(bad);
        bad = _withWord(good, 6, uint256(uint160(golemIn[0])) | (1 << 200)); // dirty redeemer
        _expectMalformed(bad);
        _expectMalformed(_truncate(good, 4 + 6 * 32)); // a head shorter than seven words
        _expectMalformed(_truncate(good, good.length - 32)); // the last bytes argument runs past the end
    }

    function _withWord(
        bytes memory data,
        uint256 index,
        uint256 value
    ) internal pure returns (bytes memory out) {
        out = bytes.concat(data);
        assembly {
            mstore(add(add(out, 0x24), mul(index, 0x20)), value)
        }
    }

    function _truncate(
        bytes memory data,
        uint256 length
    ) internal pure returns (bytes memory out) {
        out = bytes.concat(data);
        assembly {
            mstore(out, length)
        }
    }

    function _expectMalformed(
        bytes memory data
    ) internal {
        vm.prank(MANAGER);
        (bool ok, bytes memory reason) = address(enforcer).call(data);
        assertFalse(ok);
        assertEq(keccak256(reason), keccak256(abi.encodeWithSelector(GolemPhaseEnforcer.MalformedHookCall.selector)));
    }

    function test_gas_beforeHook_runway() public {
        vm.warp(RUNWAY_START);
        bytes memory terms = _runway(golemIn[1], RUNWAY_START, RUNWAY_END);
        vm.prank(MANAGER);
        uint256 g = gasleft();
        ICaveatEnforcer(address(enforcer)).beforeHook(terms, "", SINGLE, _transfer(), HASH, DELEGATOR, golemIn[1]);
        emit log_named_uint("GolemPhase.beforeHook runway terms (cold)", g - gasleft());
        vm.prank(MANAGER);
        g = gasleft();
        ICaveatEnforcer(address(enforcer)).afterAllHook(terms, "", SINGLE, _transfer(), HASH, DELEGATOR, golemIn[1]);
        emit log_named_uint("GolemPhase.afterAllHook (answered by the fallback)", g - gasleft());
    }
}
