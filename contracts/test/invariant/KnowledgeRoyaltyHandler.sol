// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { HookHandlerBase } from "./HookHandlerBase.sol";
import { Execution, ExecutionLib } from "../../src/libraries/ExecutionLib.sol";
import { KnowledgeRoyaltyEnforcer } from "../../src/enforcers/KnowledgeRoyaltyEnforcer.sol";
import { TestUSDC } from "../../src/test-assets/TestUSDC.sol";
import { TestToken } from "../../src/test-assets/TestToken.sol";

/// Random knowledge sales against KnowledgeRoyaltyEnforcer: batches of payments in the royalty token to
/// sellers and to the author (transfer and transferFrom), mixed with calls that must not count (approve,
/// another token, native value, other selectors, sub-selector calldata) and cut-off calldata whose words
/// read zero-padded; single or batch, now and then try-mode, another exec type, an unsupported call type,
/// out-of-range royalty bps or a bad terms length. The model follows docs/contracts.md.
contract KnowledgeRoyaltyHandler is HookHandlerBase {
    bytes4 internal constant TRANSFER = 0xa9059cbb;
    bytes4 internal constant TRANSFER_FROM = 0x23b872dd;
    bytes4 internal constant APPROVE = 0x095ea7b3;
    address internal constant AUTHOR = address(0xA07);

    KnowledgeRoyaltyEnforcer public immutable enforcer;
    TestUSDC public immutable usdc; // the sale's token
    TestToken public immutable other;
    address[3] internal payees = [address(0x5E11), address(0x5E12), DELEGATOR];

    uint256 public underpaidAccepted; // accepted with royalty * 10000 < paid * bps, or a sale in try-mode
    uint256 public acceptedWithRoyalty; // a sale that paid its royalty
    uint256 public acceptedNoSale; // no payment in the token to anyone but the author
    uint256 public acceptedExactRoyalty; // royalty == ceil(paid * bps / 10000) > 0
    uint256 public refusedUnpaid;
    uint256 public refusedOneShort; // royalty one unit under the required amount
    uint256 public refusedTryMode;
    uint256 public refusedBadTerms;
    uint256 public refusedCallType;

    struct Sale {
        bytes terms;
        uint16 bps;
        bytes fault; // the revert the exec type, terms or call type must give, before anything is summed
        bytes32 mode;
        Execution[] executions;
        bool asBatch;
    }

    constructor() {
        enforcer = new KnowledgeRoyaltyEnforcer();
        usdc = new TestUSDC();
        other = new TestToken("Other", "OTH", 6);
    }

    // ------------------------------------------------------------------ redemptions

    function sell(
        uint256 seed
    ) external {
        Sale memory s;
        uint256 n = 1 + (seed >> 40) % 5;
        s.asBatch = n > 1 || (seed >> 44) % 4 == 0;
        s.executions = new Execution[](n);
        for (uint256 i; i < n; ++i) {
            s.executions[i] = _execution(_rand(seed, i));
        }
        _setTermsAndMode(s, seed);
        _execute(s, false);
    }

    /// A sale paying `paid` to a seller and exactly the required royalty to the author, or one unit less,
    /// in either order, by transfer or transferFrom.
    function sellAtBoundary(
        uint256 seed
    ) external {
        Sale memory s;
        s.bps = _bps(seed);
        s.terms = abi.encode(address(usdc), AUTHOR, s.bps);
        s.mode = _mode(BATCH, DEFAULT_EXEC);
        s.asBatch = true;
        uint256 paid = 1 + _logAmount(seed >> 16, 24);
        uint256 required = (paid * s.bps + 9999) / 10_000;
        uint256 royalty = (seed >> 8) % 2 == 0 || required == 0 ? required : required - 1;
        Execution memory sale = _pay(payees[(seed >> 12) % 3], paid, (seed >> 14) % 2 == 0);
        Execution memory fee = _pay(AUTHOR, royalty, (seed >> 15) % 2 == 0);
        s.executions = new Execution[](2);
        (s.executions[0], s.executions[1]) = (seed >> 13) % 2 == 0 ? (sale, fee) : (fee, sale);
        _execute(s, true);
    }

    function _execute(
        Sale memory s,
        bool boundary
    ) internal {
        (bytes memory want, uint256 paid, uint256 royalty) = _model(s);
        bool ok = _run(address(enforcer), s.terms, s.mode, _encode(s.executions, s.asBatch), want);
        if (ok) {
            bool tryMode = ExecutionLib.execType(s.mode) != DEFAULT_EXEC;
            if (royalty * 10_000 < paid * s.bps || (tryMode && paid != 0)) underpaidAccepted++;
            if (want.length != 0) return;
            if (paid == 0) acceptedNoSale++;
            else if (royalty != 0) acceptedWithRoyalty++;
            if (boundary && paid != 0 && royalty != 0 && royalty == (paid * s.bps + 9999) / 10_000) acceptedExactRoyalty++;
            return;
        }
        bytes4 sel = _selector(want);
        if (sel == KnowledgeRoyaltyEnforcer.RoyaltyUnpaid.selector) {
            refusedUnpaid++;
            if (boundary && royalty + 1 == (paid * s.bps + 9999) / 10_000) refusedOneShort++;
        } else if (sel == ExecutionLib.UnsupportedExecType.selector) {
            refusedTryMode++;
        } else if (sel == ExecutionLib.UnsupportedCallType.selector) {
            refusedCallType++;
        } else if (want.length != 0) {
            refusedBadTerms++;
        }
    }

    // ------------------------------------------------------------------ the model

    /// Try-mode (any non-default exec type) is refused first, then bad terms, then call types other than
    /// single and batch. Over the executions, calls to the token: transfer(to, amt) and transferFrom(from,
    /// to, amt) add amt to the royalty when `to` is the author, else to the paid amount; nothing else
    /// counts. It passes when nothing was paid or royalty * 10000 >= paid * bps; otherwise it is refused
    /// with the required royalty ceil(paid * bps / 10000) and the royalty paid.
    function _model(
        Sale memory s
    ) internal view returns (bytes memory want, uint256 paid, uint256 royalty) {
        uint256 n = s.asBatch ? s.executions.length : 1;
        for (uint256 i; i < n; ++i) {
            Execution memory x = s.executions[i];
            if (x.target != address(usdc) || x.callData.length < 4) continue;
            bytes4 sel = _selector(x.callData);
            uint256 toWord;
            uint256 amount;
            if (sel == TRANSFER) (toWord, amount) = (_wordAt(x.callData, 4), _wordAt(x.callData, 36));
            else if (sel == TRANSFER_FROM) (toWord, amount) = (_wordAt(x.callData, 36), _wordAt(x.callData, 68));
            else continue;
            // The address a token reads from the word (its low 20 bytes). Amounts stay under 2**200, so the
            // sums and products below cannot overflow.
            // forge-lint: disable-next-line(unsafe-typecast) -- the low 20 bytes, on purpose
            if (address(uint160(toWord)) == AUTHOR) royalty += amount;
            else paid += amount;
        }
        if (s.fault.length != 0) return (s.fault, paid, royalty);
        if (paid != 0 && royalty * 10_000 < paid * s.bps) {
            uint256 required = (paid * s.bps + 9999) / 10_000;
            want = abi.encodeWithSelector(KnowledgeRoyaltyEnforcer.RoyaltyUnpaid.selector, required, royalty);
        }
    }

    // ------------------------------------------------------------------ generators

    /// Mostly sound terms and a default-exec single or batch; one sale in 10 gets exactly one fault.
    function _setTermsAndMode(
        Sale memory s,
        uint256 seed
    ) internal view {
        s.bps = _bps(seed);
        s.terms = abi.encode(address(usdc), AUTHOR, s.bps);
        bytes1 callType = s.asBatch ? BATCH : SINGLE;
        bytes1 execType = DEFAULT_EXEC;
        uint256 f = (seed >> 24) % 40;
        if (f < 2) {
            execType = f == 0 ? TRY_EXEC : bytes1(0x02);
            s.fault = abi.encodeWithSelector(ExecutionLib.UnsupportedExecType.selector, execType);
        } else if (f == 2) {
            uint16 bad = uint16(bound(seed >> 32, 10_001, type(uint16).max));
            s.terms = abi.encode(address(usdc), AUTHOR, bad);
            s.fault = abi.encodeWithSelector(KnowledgeRoyaltyEnforcer.InvalidRoyaltyBps.selector, bad);
        } else if (f == 3) {
            s.terms = (seed >> 32) % 2 == 0 ? abi.encodePacked(s.terms, bytes1(0)) : _truncate(s.terms, 64);
            s.fault = abi.encodeWithSelector(KnowledgeRoyaltyEnforcer.InvalidTermsLength.selector, s.terms.length);
        } else if (f == 4) {
            callType = (seed >> 32) % 2 == 0 ? bytes1(0xff) : bytes1(0x02);
            s.fault = abi.encodeWithSelector(ExecutionLib.UnsupportedCallType.selector, callType);
        }
        s.mode = _mode(callType, execType);
    }

    function _bps(
        uint256 seed
    ) internal pure returns (uint16) {
        uint256 r = seed % 10;
        if (r < 8) return [uint16(0), 1, 100, 1000, 2500, 3333, 9999, 10_000][r];
        return uint16(bound(seed >> 4, 0, 10_000));
    }

    /// Payments to sellers, the delegator or the author; calls that must not count; cut-off calldata.
    function _execution(
        uint256 r
    ) internal view returns (Execution memory x) {
        uint256 kind = r % 12;
        uint256 amount = (r >> 8) % 16 == 0 ? bound(r >> 12, 0, 1 << 200) : _logAmount(r >> 12, 12);
        if (kind < 4) x = _pay(payees[(r >> 4) % 3], amount, (r >> 6) % 2 == 0);
        else if (kind < 7) x = _pay(AUTHOR, amount, (r >> 6) % 2 == 0);
        else if (kind == 7) x = Execution(address(usdc), 0, abi.encodeWithSelector(APPROVE, payees[0], amount));
        else if (kind == 8) x = Execution(address(other), 0, abi.encodeWithSelector(TRANSFER, payees[0], amount));
        else if (kind == 9) x = Execution(payees[(r >> 4) % 3], amount, "");
        else if (kind == 10) x = Execution(address(usdc), 0, abi.encodeWithSignature("mint(address,uint256)", payees[0], amount));
        else x = Execution(address(usdc), 0, (r >> 4) % 2 == 0 ? bytes(hex"a9059c") : _dirtyAuthorTransfer(amount));
        if ((r >> 220) % 12 == 0 && x.callData.length > 4) {
            x.callData = _truncate(x.callData, bound(r >> 224, 4, x.callData.length - 1)); // words read zero-padded
        }
    }

    function _pay(
        address to,
        uint256 amount,
        bool viaTransferFrom
    ) internal view returns (Execution memory) {
        bytes memory cd = viaTransferFrom
            ? abi.encodeWithSelector(TRANSFER_FROM, DELEGATOR, to, amount)
            : abi.encodeWithSelector(TRANSFER, to, amount);
        return Execution(address(usdc), 0, cd);
    }

    /// A transfer whose `to` word has dirty high bits over the author's address.
    function _dirtyAuthorTransfer(
        uint256 amount
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(TRANSFER, uint256(uint160(AUTHOR)) | (1 << 255), amount);
    }
}
